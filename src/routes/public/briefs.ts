import { Out, ShortcodePathParam } from "../../http/openapi/documents";
import { createRoute, z } from "@hono/zod-openapi";
import { cachedPublicDocument, publicBriefPath } from "../../http/cache";
import { ApiError } from "../../http/errors";
import { embedded, JSONAPI_VERSION, resource, toOne } from "../../http/jsonapi";
import { JSONAPI_MEDIA_TYPE } from "../../http/media-type";
import { embeddedResourceSchema, RecordLink, resourceSchema, toOneSchema } from "../../http/openapi/documents";
import { errorResponses, jsonApiContent } from "../../http/openapi/responses";
import { NoQuery } from "../../http/openapi/queries";
import { createRouter } from "../../http/router";
import { normalizeShortcode, nowIso } from "../../lib/ids";
import { findPublishedBrief, type PublishedBrief } from "../../services/briefs";
import { PublicBriefAttributes, publicBriefAttributes } from "../v1/briefs/schema";
import { PolicyTerms, policyTerms } from "../v1/policies/schema";
import { publicRateLimit } from "../../http/rate-limit";
import { RESPONSIVENESS_DAYS, RESPONSIVENESS_MIN_REPORTS, type Responsiveness } from "../../services/metrics";
import { declare } from "../../http/route-facts";

const PublicOrganization = embeddedResourceSchema(
  "PublicOrganization",
  "organization",
  z.object({ name: Out.name, slug: Out.slug, website_url: Out.url.nullable(), claimed: z.boolean() }),
  z.object({}),
);

const ResponsivenessSchema = z
  .object({
    period_days: z.literal(RESPONSIVENESS_DAYS),
    acknowledged_on_time: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .openapi({ description: "Of the acknowledge deadlines decided (met, or past due), the share met on time; null while none is." }),
    median_seconds_to_acknowledge: z
      .number()
      .int()
      .min(0)
      // Reports of the period acknowledged by now waited at most the period.
      .max(RESPONSIVENESS_DAYS * 86_400)
      .nullable()
      .openapi({ description: "Of the reports acknowledged, the median time from received to acknowledged; null while none is." }),
  })
  .nullable()
  .openapi("Responsiveness", {
    description:
      `How the policy answered the reports sent through its briefs in the last ${RESPONSIVENESS_DAYS} days; null until it has received ` +
      `at least ${RESPONSIVENESS_MIN_REPORTS} in that period.`,
  });

export const PublicPolicy = embeddedResourceSchema("PublicPolicy", "policy", PolicyTerms, z.object({})).extend({
  meta: z.object({ responsiveness: ResponsivenessSchema }),
});

const PublicBrief = resourceSchema(
  "PublicBrief",
  "brief",
  PublicBriefAttributes,
  z.object({ organization: toOneSchema("organization"), policy: toOneSchema("policy") }),
);

const PublicBriefDocument = z.object({
  jsonapi: z.object({ version: z.literal("1.1") }),
  data: PublicBrief,
  included: z.array(z.union([PublicOrganization, PublicPolicy])).max(2),
  links: z.object({ self: RecordLink }),
});

/** The public page of a brief: only what a researcher needs, nothing of the organization's private data. */
export function publicBriefDocument({ brief, organization, policy, responsiveness }: PublishedBrief, now: string) {
  const self = publicBriefPath(brief.shortcode);
  const data = resource("brief", brief.id, publicBriefAttributes(brief), self, {
    organization: toOne("organization", organization.id),
    policy: toOne("policy", policy?.id),
  });
  const included: (ReturnType<typeof publicOrganization> | ReturnType<typeof publicPolicy>)[] = [publicOrganization(organization)];
  if (policy) included.push(publicPolicy(policy, now, responsiveness));
  return { jsonapi: JSONAPI_VERSION, data, included, links: { self } };
}

function publicOrganization(org: PublishedBrief["organization"]) {
  return embedded("organization", org.id, { name: org.name, slug: org.slug, website_url: org.websiteUrl, claimed: org.claimed });
}

/** A published policy's public terms, and its responsiveness as `meta`. */
export function publicPolicy(p: NonNullable<PublishedBrief["policy"]>, now: string, r: Responsiveness | null) {
  const responsiveness = r && {
    period_days: r.periodDays,
    acknowledged_on_time: r.acknowledgedOnTime,
    median_seconds_to_acknowledge: r.medianSecondsToAcknowledge,
  };
  return { ...embedded("policy", p.id, policyTerms(p, now)), meta: { responsiveness } };
}

export const briefNotFound = () => new ApiError("brief_not_found", { detail: "No published brief has that shortcode." });

export const publicBriefsRouter = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/briefs/{shortcode}",
    operationId: "showPublicBrief",
    tags: ["Public"],
    summary: "Read a published brief (no key). Served from the edge cache; ETag and If-None-Match supported",
    security: [],
    middleware: [publicRateLimit("PUBLIC_READ_RATE_LIMITER"), declare({ cached: true })],
    request: {
      params: z.object({
        shortcode: ShortcodePathParam("7KQ2-M9XD"),
      }),
      query: NoQuery,
    },
    responses: {
      200: {
        description: "The published brief, with its organization and published policy in `included`",
        content: jsonApiContent(PublicBriefDocument),
        headers: {
          ETag: { schema: { type: "string" } },
          "X-Cache": { schema: { type: "string", enum: ["HIT", "MISS"] } },
          "Cache-Control": { schema: { type: "string", example: "public, max-age=60, s-maxage=60" } },
        },
      },
      304: { description: "Not modified (If-None-Match matched the ETag)" },
      ...errorResponses("read", { public: true, notFound: "Brief not found: unknown shortcode, or a draft" }),
    },
  }),
  async (c) => {
    const shortcode = normalizeShortcode(c.req.valid("param").shortcode);
    if (!shortcode) throw briefNotFound();
    const response = await cachedPublicDocument(c, publicBriefPath(shortcode), JSONAPI_MEDIA_TYPE, async () => {
      const now = nowIso();
      const found = await findPublishedBrief(c.var.database.db, shortcode, now);
      return found && publicBriefDocument(found, now);
    });
    if (!response) throw briefNotFound();
    return response;
  },
);
