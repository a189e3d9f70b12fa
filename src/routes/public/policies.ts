import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../../http/errors";
import { JSONAPI_VERSION } from "../../http/jsonapi";
import { respond } from "../../http/media-type";
import { errorResponses, jsonApiContent } from "../../http/openapi/responses";
import { NoQuery } from "../../http/openapi/queries";
import { RecordLink, ShortcodePathParam } from "../../http/openapi/documents";
import { publicRateLimit } from "../../http/rate-limit";
import { createRouter } from "../../http/router";
import { normalizeShortcode, nowIso } from "../../lib/ids";
import { LIMITS, RATES } from "../../lib/limits";
import { SHORTCODE_PATTERN } from "../../lib/ids";
import { SEVERITIES } from "../../db/schema";
import { findHallOfFame, HALL_OF_FAME_SIZE } from "../../services/hall-of-fame";
import { getPublicPolicyVersion } from "../../services/policy-versions";
import { PolicyVersion, serializePolicyVersion } from "../v1/policies/schema";

const versionNotFound = () =>
  new ApiError("not_found", { detail: "No published policy has that shortcode, or it has no version with that number." });

const PublicPolicyVersionDocument = z.object({
  jsonapi: z.object({ version: z.literal("1.1") }),
  data: PolicyVersion,
  links: z.object({ self: RecordLink }),
});

const HallOfFameDocument = z.object({
  jsonapi: z.object({ version: z.literal("1.1") }),
  data: z
    .object({
      type: z.literal("hall_of_fame"),
      id: z.string().max(9).regex(SHORTCODE_PATTERN),
      attributes: z.object({
        policy_name: z.string().max(LIMITS.nameLength).nullable(),
        organization_name: z.string().max(LIMITS.nameLength),
        entries: z
          .array(
            z.object({
              name: z.string().max(LIMITS.nameLength).openapi({ description: "The name the reporter chose to be credited by." }),
              month: z
                .string()
                .max(7)
                .regex(/^\d{4}-\d{2}$/)
                .openapi({ description: "The month the report was sent (YYYY-MM)." }),
              severity: z.enum(SEVERITIES).nullable(),
            }),
          )
          .max(HALL_OF_FAME_SIZE),
      }),
      links: z.object({ self: RecordLink }),
    })
    .openapi("HallOfFame"),
  links: z.object({ self: RecordLink }),
});

const hallNotFound = () => new ApiError("not_found", { detail: "No published policy with that shortcode keeps a hall of fame." });

/** A version of a published policy's terms: what a reporter was promised, for anyone to read and hash. */
export const publicPoliciesRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/policies/{shortcode}/hall_of_fame",
      operationId: "showPublicHallOfFame",
      tags: ["Public"],
      summary:
        `The hall of fame of a published policy that keeps one: the reporters who chose to be credited, for reports resolved or ` +
        `disclosed in an advisory, newest first, with the month and severity of each (no key; ${RATES.publicReads} reads a minute per ` +
        `client IP)`,
      security: [],
      middleware: [publicRateLimit("PUBLIC_READ_RATE_LIMITER")],
      request: { params: z.object({ shortcode: ShortcodePathParam("7KQ2-M9XD") }), query: NoQuery },
      responses: {
        200: { description: "The hall of fame", content: jsonApiContent(HallOfFameDocument) },
        ...errorResponses("read", { public: true, notFound: "No published policy with that shortcode, or it keeps no hall of fame" }),
      },
    }),
    async (c) => {
      const shortcode = normalizeShortcode(c.req.valid("param").shortcode);
      const hall = shortcode && (await findHallOfFame(c.var.database.db, shortcode, nowIso()));
      if (!hall) throw hallNotFound();
      const self = `/v1/p/policies/${hall.policy.shortcode}/hall_of_fame`;
      return respond(c, {
        jsonapi: JSONAPI_VERSION,
        data: {
          type: "hall_of_fame" as const,
          id: hall.policy.shortcode,
          attributes: { policy_name: hall.policy.name, organization_name: hall.organization.name, entries: hall.entries },
          links: { self },
        },
        links: { self },
      });
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/policies/{shortcode}/versions/{number}",
      operationId: "showPublicPolicyVersion",
      tags: ["Public"],
      summary: `Read a version of a published policy's terms (no key; ${RATES.publicReads} reads a minute per client IP). A version never changes`,
      security: [],
      middleware: [publicRateLimit("PUBLIC_READ_RATE_LIMITER")],
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
      const row = await getPublicPolicyVersion(c.var.database.db, { shortcode, number: Number(number) }, nowIso());
      if (!row) throw versionNotFound();
      const self = `/v1/p/policies/${shortcode}/versions/${row.number}`;
      return respond(c, { jsonapi: JSONAPI_VERSION, data: serializePolicyVersion(row, self), links: { self } });
    },
  );
