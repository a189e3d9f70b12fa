import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../http/app-env";
import { type AdvisoryFormat, cachedPublicDocument, publicAdvisoryPath } from "../../http/cache";
import { ApiError } from "../../http/errors";
import { JSONAPI_VERSION } from "../../http/jsonapi";
import { JSONAPI_MEDIA_TYPE } from "../../http/media-type";
import { errorResponses, jsonApiContent } from "../../http/openapi/responses";
import { NoQuery } from "../../http/openapi/queries";
import { RecordLink, Uuid } from "../../http/openapi/documents";
import { PublicAdvisoryAttributes, publicAdvisoryAttributes } from "../v1/advisories/schema";
import { publicRateLimit } from "../../http/rate-limit";
import { createRouter } from "../../http/router";
import { type AdvisoryDocument, advisoryLinks } from "../../lib/advisory";
import { renderAdvisory } from "../../lib/advisory-renderings";
import { normalizeUuid } from "../../lib/ids";
import { RATES } from "../../lib/limits";
import { findPublicAdvisory } from "../../services/advisories";
import { declare } from "../../http/route-facts";

// A published advisory, for anyone: as JSON:API, and as the documents the world's tools read (CSAF 2.0,
// OSV, a CVE JSON 5.1 CNA container), all made from its latest revision. Drafts are not found (and
// nothing about them is cached); a withdrawn advisory stays readable, marked withdrawn.

const advisoryNotFound = () => new ApiError("not_found", { detail: "No published advisory has that id." });
const AdvisoryIdParam = z.object({
  id: z
    .string()
    .max(36)
    .openapi({ param: { name: "id", in: "path" }, format: "uuid" }),
});

const PublicAdvisory = z
  .object({
    type: z.literal("advisory"),
    id: Uuid,
    attributes: PublicAdvisoryAttributes,
    links: z.object({ self: RecordLink }),
    meta: z.object({
      renderings: z
        .object({ page: RecordLink, csaf: RecordLink, osv: RecordLink, cve: RecordLink })
        .openapi({ description: "The same advisory for people (page), and as CSAF 2.0, OSV and a CVE JSON 5.1 CNA container." }),
    }),
  })
  .openapi("PublicAdvisory");

const PublicAdvisoryDocument = z.object({
  jsonapi: z.object({ version: z.literal("1.1") }),
  data: PublicAdvisory,
  links: z.object({ self: RecordLink }),
});

function publicAdvisoryDocument(doc: AdvisoryDocument) {
  const self = publicAdvisoryPath(doc.id);
  return {
    jsonapi: JSONAPI_VERSION,
    data: {
      type: "advisory",
      id: doc.id,
      attributes: publicAdvisoryAttributes(doc),
      links: { self },
      meta: { renderings: { page: `/a/${doc.id}`, csaf: `${self}/csaf`, osv: `${self}/osv`, cve: `${self}/cve` } },
    },
    links: { self },
  };
}

/** A document whose schema is its standard's own (OASIS CSAF 2.0, OSV 1.6, CVE JSON 5.1), which the tests hold it to. */
const StandardDocument = z.looseObject({}).openapi({ type: "object", additionalProperties: true });

const FORMATS: Record<AdvisoryFormat, { summary: string; description: string }> = {
  csaf: {
    summary: "A published advisory as a CSAF 2.0 document (profile csaf_security_advisory, TLP WHITE)",
    description: "Valid under the OASIS CSAF 2.0 schema and its mandatory tests; the tracking id is vdp-{id}.",
  },
  osv: {
    summary: "A published advisory in the OSV format (schema 1.6)",
    description: "Its id is x_VDP-{id}; a product with a package URL of an OSV ecosystem is a package.",
  },
  cve: {
    summary: "A published advisory as a CVE JSON 5.1 CNA container, for CVE Services",
    description: "providerMetadata.orgId is a UUID derived from the organization; CVE Services sets the CNA's own on submission.",
  },
};

const cacheHeaders = {
  ETag: { schema: { type: "string" as const } },
  "X-Cache": { schema: { type: "string" as const, enum: ["HIT", "MISS"] } },
  "Cache-Control": { schema: { type: "string" as const, example: "public, max-age=60, s-maxage=60" } },
};

const read = (format?: AdvisoryFormat) =>
  createRoute({
    method: "get",
    path: `/advisories/{id}${format ? `/${format}` : ""}`,
    operationId: format ? `showPublicAdvisory${format === "csaf" ? "Csaf" : format === "osv" ? "Osv" : "Cve"}` : "showPublicAdvisory",
    tags: ["Public"],
    summary:
      `${format ? FORMATS[format].summary : "Read a published advisory"} (no key; ${RATES.publicReads} reads a minute per client IP). ` +
      `Served from the edge cache; ETag and If-None-Match supported`,
    ...(format ? { description: FORMATS[format].description } : {}),
    security: [],
    middleware: [publicRateLimit("PUBLIC_READ_RATE_LIMITER"), declare({ cached: true })],
    request: { params: AdvisoryIdParam, query: NoQuery },
    responses: {
      200: format
        ? {
            description: "The document",
            content: { "application/json": { schema: StandardDocument } },
            headers: cacheHeaders,
          }
        : { description: "The advisory's latest revision", content: jsonApiContent(PublicAdvisoryDocument), headers: cacheHeaders },
      304: { description: "Not modified (If-None-Match matched the ETag)" },
      ...errorResponses("read", { public: true, notFound: "No published advisory with that id (a draft is not found)" }),
    },
  });

export const publicAdvisoriesRouter = createRouter()
  .openapi(read(), async (c) => {
    const id = normalizeUuid(c.req.valid("param").id);
    if (!id) throw advisoryNotFound();
    const response = await cachedPublicDocument(c, publicAdvisoryPath(id), JSONAPI_MEDIA_TYPE, async () => {
      const doc = await findPublicAdvisory(c.var.database.db, id);
      return doc && publicAdvisoryDocument(doc);
    });
    if (!response) throw advisoryNotFound();
    return response;
  })
  .openapi(read("csaf"), (c) => rendering(c, "csaf"))
  .openapi(read("osv"), (c) => rendering(c, "osv"))
  .openapi(read("cve"), (c) => rendering(c, "cve"));

async function rendering(c: Context<AppEnv>, format: AdvisoryFormat): Promise<Response> {
  const id = normalizeUuid(c.req.param("id") ?? "");
  if (!id) throw advisoryNotFound();
  const response = await cachedPublicDocument(c, publicAdvisoryPath(id, format), "application/json", async () => {
    const doc = await findPublicAdvisory(c.var.database.db, id);
    if (!doc) return null;
    return renderAdvisory(doc, format, advisoryLinks(c.env.PUBLIC_ORIGIN, id), c.env.SERVICE_NAME);
  });
  if (!response) throw advisoryNotFound();
  return response;
}
