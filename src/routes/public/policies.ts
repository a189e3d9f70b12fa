import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../../http/errors";
import { JSONAPI_VERSION } from "../../http/jsonapi";
import { respond } from "../../http/media-type";
import { errorResponses, jsonApiContent, NoQuery, RecordLink, ShortcodePathParam } from "../../http/openapi";
import { publicRateLimit } from "../../http/rate-limit";
import { createRouter } from "../../http/router";
import { normalizeShortcode, nowIso } from "../../lib/ids";
import { RATES } from "../../lib/limits";
import { getPublicPolicyVersion } from "../../services/policy-versions";
import { PolicyVersion, serializePolicyVersion } from "../v1/policies/schema";

const versionNotFound = () =>
  new ApiError("not_found", { detail: "No published policy has that shortcode, or it has no version with that number." });

const PublicPolicyVersionDocument = z.object({
  jsonapi: z.object({ version: z.literal("1.1") }),
  data: PolicyVersion,
  links: z.object({ self: RecordLink }),
});

/** A version of a published policy's terms: what a reporter was promised, for anyone to read and hash. */
export const publicPoliciesRouter = createRouter().openapi(
  createRoute({
    method: "get",
    path: "/policies/{shortcode}/versions/{number}",
    operationId: "showPublicPolicyVersion",
    tags: ["Public"],
    summary: `Read a version of a published policy's terms (no key; ${RATES.publicReads} reads a minute per client IP). A version never changes`,
    security: [],
    middleware: [publicRateLimit("PUBLIC_READ_RATE_LIMITER", RATES.publicReads)],
    request: {
      params: z.object({
        shortcode: ShortcodePathParam("7KQ2-M9XD"),
        number: z
          .string()
          .max(9)
          .regex(/^[1-9][0-9]{0,8}$/)
          .openapi({ param: { name: "number", in: "path" }, example: "1" }),
      }),
      query: NoQuery,
    },
    responses: {
      200: { description: "The version", content: jsonApiContent(PublicPolicyVersionDocument) },
      ...errorResponses("read", { public: true, notFound: "No published policy with that shortcode, or no such version" }),
    },
  }),
  async (c) => {
    const { shortcode: given, number } = c.req.valid("param");
    const shortcode = normalizeShortcode(given);
    if (!shortcode) throw versionNotFound();
    const row = await getPublicPolicyVersion(c.var.database.db, shortcode, Number(number), nowIso());
    if (!row) throw versionNotFound();
    const self = `/v1/p/policies/${shortcode}/versions/${row.number}`;
    return respond(c, { jsonapi: JSONAPI_VERSION, data: serializePolicyVersion(row, self), links: { self } });
  },
);
