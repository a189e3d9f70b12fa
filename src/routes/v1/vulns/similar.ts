import { createRoute, z } from "@hono/zod-openapi";
import { JSONAPI_VERSION, resource, toOne } from "../../../http/jsonapi";
import { JSON_MEDIA_TYPE, respond } from "../../../http/media-type";
import { JsonApiObject, resourceSchema, toOneSchema } from "../../../http/openapi/documents";
import { errorResponses, jsonContent } from "../../../http/openapi/responses";
import { createRouter } from "../../../http/router";
import { SIMILAR_LIMIT } from "../../../lib/similarity";
import { vulnIdOf } from "../../../services/vulns/read";
import { listSimilarVulns, type SimilarVuln } from "../../../services/vulns/similar";
import { serviceContext } from "../handler-helpers";
import { VulnParam } from "./schema";

const tags = ["Vulns"];
const readErrors = errorResponses("read", { notFound: "Vuln not found", mediaType: JSON_MEDIA_TYPE, scope: "read" });

const VulnSimilarityAttributes = z.object({
  score: z.number().min(0).max(1).openapi({
    description: "0..1: the text's likeness and the technical facts both reports share, combined. Above 0.5 makes possible_duplicate_of.",
    example: 0.61,
  }),
  reasons: z
    .array(z.string().max(300))
    .max(8)
    .openapi({ description: "What they share, in words.", example: ["same endpoint /search?q", "CWE-79"] }),
});

/** Another report of the organization like this one; its id is that report's. */
export const VulnSimilarity = resourceSchema(
  "VulnSimilarity",
  "vuln_similarity",
  VulnSimilarityAttributes,
  z.object({ vuln: toOneSchema("vuln") }),
);

const SimilarDocument = z.object({ jsonapi: JsonApiObject, data: z.array(VulnSimilarity).max(SIMILAR_LIMIT) });

export function serializeSimilarity(row: SimilarVuln) {
  return resource("vuln_similarity", row.similarId, { score: row.score, reasons: row.reasons }, `/v1/vulns/${row.vulnId}/similar`, {
    vuln: toOne("vuln", row.similarId),
  });
}

export const similarRouter = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/{id}/similar",
    operationId: "listSimilarVulns",
    tags,
    summary:
      `The organization's reports most like this one, best first (up to ${SIMILAR_LIMIT}), found at intake. A hint for the triager: ` +
      "it never changes a report, and the reporter never sees it",
    request: { params: VulnParam },
    responses: { 200: { description: "Similar vulns", content: jsonContent(SimilarDocument) }, ...readErrors },
  }),
  async (c) => {
    const ctx = serviceContext(c);
    const vulnId = await vulnIdOf(ctx, c.req.valid("param").id);
    return respond(c, { jsonapi: JSONAPI_VERSION, data: (await listSimilarVulns(ctx, vulnId)).map(serializeSimilarity) });
  },
);
