import { createRoute, z } from "@hono/zod-openapi";
import { cachedPublicDocument, publicBriefPath } from "../../http/cache";
import { ApiError } from "../../http/errors";
import { JSONAPI_VERSION, resource, toOne } from "../../http/jsonapi";
import { JSONAPI_MEDIA_TYPE } from "../../http/media-type";
import { errorResponses, jsonApiContent, resourceSchema, Timestamp, toOneSchema } from "../../http/openapi";
import { createRouter } from "../../http/router";
import { maturityRating } from "../../lib/maturity";
import { normalizeShortcode, nowIso } from "../../lib/ids";
import { findPublishedBrief, type PublishedBrief } from "../../services/briefs";
import { ScopeAssetSchema } from "../v1/fields";
import { BriefAttributes, briefAttributes } from "../v1/briefs/schema";
import { publicRateLimit } from "../../http/rate-limit";

const PublicOrganization = resourceSchema(
  "PublicOrganization",
  "organization",
  z.object({ name: z.string(), slug: z.string(), website_url: z.string().nullable(), claimed: z.boolean() }),
  z.object({}),
);

export const PublicPolicy = resourceSchema(
  "PublicPolicy",
  "policy",
  z.object({
    name: z.string().nullable(),
    short_description: z.string().nullable(),
    point_of_contact: z.string().nullable(),
    contact_url: z.string().nullable(),
    securitytxt_url: z.string().nullable(),
    hosted_policy_url: z.string().nullable(),
    safe_harbor: z.string().nullable(),
    cvd_timeline: z.number().int().nullable(),
    public_disclosure: z.boolean().nullable(),
    offers_bounty: z.boolean().nullable(),
    offers_swag: z.boolean().nullable(),
    hall_of_fame: z.boolean().nullable(),
    maturity_rating: z.number().int(),
    shortcode: z.string(),
    published_at: Timestamp.nullable(),
    in_scope_assets: z.array(ScopeAssetSchema),
    out_of_scope_assets: z.array(ScopeAssetSchema),
  }),
  z.object({}),
);

const PublicBrief = resourceSchema(
  "PublicBrief",
  "brief",
  BriefAttributes,
  z.object({ organization: toOneSchema("organization"), policy: toOneSchema("policy") }),
);

const PublicBriefDocument = z.object({
  jsonapi: z.object({ version: z.literal("1.1") }),
  data: PublicBrief,
  included: z.array(z.union([PublicOrganization, PublicPolicy])),
  links: z.object({ self: z.string() }),
});

/** The public page of a brief: only what a researcher needs, nothing of the organization's private data. */
export function publicBriefDocument({ brief, organization, policy }: PublishedBrief, now: string) {
  const self = publicBriefPath(brief.shortcode);
  const data = resource("brief", brief.id, briefAttributes(brief), self, {
    organization: toOne("organization", organization.id),
    policy: toOne("policy", policy?.id),
  });
  const included: (ReturnType<typeof publicOrganization> | ReturnType<typeof publicPolicy>)[] = [publicOrganization(organization)];
  if (policy) included.push(publicPolicy(policy, now));
  return { jsonapi: JSONAPI_VERSION, data, included, links: { self } };
}

function publicOrganization(org: PublishedBrief["organization"]) {
  return resource(
    "organization",
    org.id,
    { name: org.name, slug: org.slug, website_url: org.websiteUrl, claimed: org.claimed },
    `/v1/organizations/${org.id}`,
  );
}

export function publicPolicy(p: NonNullable<PublishedBrief["policy"]>, now: string) {
  return resource(
    "policy",
    p.id,
    {
      name: p.name,
      short_description: p.shortDescription,
      point_of_contact: p.pointOfContact,
      contact_url: p.contactUrl,
      securitytxt_url: p.securitytxtUrl,
      hosted_policy_url: p.hostedPolicyUrl,
      safe_harbor: p.safeHarbor,
      cvd_timeline: p.cvdTimeline,
      public_disclosure: p.publicDisclosure,
      offers_bounty: p.offersBounty,
      offers_swag: p.offersSwag,
      hall_of_fame: p.hallOfFame,
      maturity_rating: maturityRating(p, now),
      shortcode: p.shortcode,
      published_at: p.publishedAt,
      in_scope_assets: p.inScopeAssets,
      out_of_scope_assets: p.outOfScopeAssets,
    },
    `/v1/policies/${p.id}`,
  );
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
    middleware: [publicRateLimit("PUBLIC_READ_RATE_LIMITER", 300)],
    request: { params: z.object({ shortcode: z.string().openapi({ param: { name: "shortcode", in: "path" }, example: "7KQ2-M9XD" }) }) },
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
