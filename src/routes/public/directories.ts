import { Out } from "../../http/openapi/documents";
import { createRoute, z } from "@hono/zod-openapi";
import { cachedPublicDocument, publicDirectoryPath } from "../../http/cache";
import { ApiError } from "../../http/errors";
import { embedded, JSONAPI_VERSION, resource, toMany } from "../../http/jsonapi";
import { JSONAPI_MEDIA_TYPE } from "../../http/media-type";
import { embeddedResourceSchema, resourceSchema, Timestamp, toManySchema, Uuid, RecordLink } from "../../http/openapi/documents";
import { errorResponses, jsonApiContent } from "../../http/openapi/responses";
import { NoQuery } from "../../http/openapi/queries";
import { createRouter } from "../../http/router";
import { nowIso, SLUG_PATTERN } from "../../lib/ids";
import { LIMITS } from "../../lib/limits";
import { findPublicDirectoryIn, type PublicDirectoryEntry } from "../../services/public-directories";
import { PublicBriefAttributes, publicBriefAttributes } from "../v1/briefs/schema";
import { publicPolicy, PublicPolicy } from "./briefs";
import { publicRateLimit } from "../../http/rate-limit";
import { everyShard } from "../../http/shard-lookup";
import { declare } from "../../http/route-facts";

const PublicDirectory = resourceSchema(
  "PublicDirectory",
  "directory",
  z.object({
    name: Out.name,
    slug: Out.slug,
    description: Out.shortDescription.nullable(),
    min_maturity_rating: z.number().int().min(0).max(5),
    updated_at: Timestamp,
  }),
  z.object({ organizations: toManySchema("organization", LIMITS.listingsPerDirectory) }),
);

const DirectoryOrganization = embeddedResourceSchema(
  "PublicDirectoryOrganization",
  "organization",
  z.object({
    name: Out.name,
    slug: Out.slug,
    website_url: Out.url.nullable(),
    claimed: z.boolean(),
    maturity_rating: z.number().int().min(0).max(5).openapi({ description: "Its best published policy's rating, 0..5" }),
    claim: z
      .object({ status: z.literal("coming_soon") })
      .optional()
      .openapi({ description: "Unclaimed organizations only: claiming is announced, not yet offered" }),
  }),
  z.object({
    items: z
      .object({ data: z.array(z.object({ type: z.enum(["policy", "brief"]), id: Uuid })).max(LIMITS.itemsPerListing) })
      .openapi({ description: "What the organization shows, in position order" }),
  }),
);

const DirectoryBrief = resourceSchema("PublicDirectoryBrief", "brief", PublicBriefAttributes, z.object({}));

const PublicDirectoryDocument = z.object({
  jsonapi: z.object({ version: z.literal("1.1") }),
  data: PublicDirectory,
  included: z
    .array(z.union([DirectoryOrganization, PublicPolicy, DirectoryBrief]))
    .max(LIMITS.listingsPerDirectory * (1 + LIMITS.itemsPerListing))
    .openapi({
      description: "The organizations listed, then the public fields of the policies and briefs they show",
    }),
  links: z.object({ self: RecordLink }),
});

function organizationResource(e: PublicDirectoryEntry) {
  const o = e.organization;
  return embedded(
    "organization",
    o.id,
    {
      name: o.name,
      slug: o.slug,
      website_url: o.websiteUrl,
      claimed: o.claimed,
      maturity_rating: e.rating,
      // Claiming a listed organization is announced, not yet offered.
      ...(o.claimed ? {} : { claim: { status: "coming_soon" as const } }),
    },
    { items: { data: e.items.map((i) => ({ type: i.type === "Policy" ? "policy" : "brief", id: i.row.id })) } },
  );
}

export const publicDirectoriesRouter = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/directories/{slug}",
    operationId: "showPublicDirectory",
    tags: ["Public"],
    summary:
      "Read a directory (no key): its visible organizations that meet its minimum rating, best first, with their items in order. " +
      "Cached like briefs",
    security: [],
    middleware: [publicRateLimit("PUBLIC_READ_RATE_LIMITER"), declare({ cached: true })],
    request: {
      params: z.object({
        slug: z.string().openapi({
          param: { name: "slug", in: "path" },
          maxLength: LIMITS.slugLength,
          pattern: SLUG_PATTERN.source,
          example: "demo-directory",
        }),
      }),
      query: NoQuery,
    },
    responses: {
      200: { description: "The directory", content: jsonApiContent(PublicDirectoryDocument) },
      304: { description: "Not modified (If-None-Match matched the ETag)" },
      ...errorResponses("read", { public: true }),
    },
  }),
  async (c) => {
    const slug = c.req.valid("param").slug.toLowerCase();
    const response = await cachedPublicDocument(c, publicDirectoryPath(slug), JSONAPI_MEDIA_TYPE, async () => {
      const now = nowIso();
      const found = await findPublicDirectoryIn(everyShard(c), slug, now);
      if (!found) return null;
      const { directory, entries } = found;
      const self = publicDirectoryPath(directory.slug);
      const shown = new Map<string, ReturnType<typeof publicPolicy> | ReturnType<typeof briefResource>>();
      for (const e of entries)
        for (const i of e.items)
          shown.set(`${i.type}:${i.row.id}`, i.type === "Policy" ? publicPolicy(i.row, now, i.responsiveness) : briefResource(i.row));
      return {
        jsonapi: JSONAPI_VERSION,
        data: resource(
          "directory",
          directory.id,
          {
            name: directory.name,
            slug: directory.slug,
            description: directory.description,
            min_maturity_rating: directory.minMaturityRating,
            updated_at: directory.updatedAt,
          },
          self,
          {
            organizations: toMany(
              "organization",
              entries.map((e) => e.organization.id),
            ),
          },
        ),
        included: [...entries.map(organizationResource), ...shown.values()],
        links: { self },
      };
    });
    if (!response) throw new ApiError("not_found", { detail: "No directory has that slug." });
    return response;
  },
);

function briefResource(b: Parameters<typeof publicBriefAttributes>[0]) {
  return resource("brief", b.id, publicBriefAttributes(b), `/v1/p/briefs/${b.shortcode}`);
}
