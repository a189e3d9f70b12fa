import { INBOX_STATES } from "../../db/schema";
import { LIMITS } from "../../lib/limits";
import { Out, ShortcodePathParam, Uuid } from "../../http/openapi/documents";
import { REPORTER_TOKEN_PATTERN } from "../../lib/crypto";
import { createRoute, z } from "@hono/zod-openapi";
import { assertDocumentMatches, JSONAPI_VERSION } from "../../http/jsonapi";
import { JSON_MEDIA_TYPE, respond } from "../../http/media-type";
import { errorResponses, jsonContent } from "../../http/openapi/responses";
import { requestDocument, Timestamp } from "../../http/openapi/documents";
import { declare } from "../../http/route-facts";
import { createRouter } from "../../http/router";
import { normalizeShortcode } from "../../lib/ids";
import type { VulnRecord } from "../../services/vulns/types";
import { submitReport } from "../../services/reporter";
import { serviceContext, storedResponse } from "../v1/handler-helpers";
import { PublicSubmissionAttributes, rawSubmission } from "../v1/vulns/schema";
import { briefNotFound } from "./briefs";
import { clientIp, publicRateLimit } from "../../http/rate-limit";
import type { Context } from "hono";
import type { GateInput } from "../../services/gate/admission";
import { SignatureInvalid } from "../../lib/domain-errors";
import { RATES } from "../../lib/limits";

const PublicSubmissionInput = requestDocument("vuln", PublicSubmissionAttributes, z.strictObject({}).optional()).openapi(
  "PublicSubmissionInput",
);

const Receipt = z
  .object({
    jsonapi: z.object({ version: z.literal("1.1") }),
    data: z.object({
      type: z.literal("vuln"),
      id: Uuid,
      attributes: z.object({
        shortcode: Out.vulnShortcode,
        title: z.string().max(LIMITS.titleLength),
        inbox_state: z.enum(INBOX_STATES).openapi({
          description:
            "dispatching: taken. queued: the brief's daily cap is reached; the report is stored and will be released in order " +
            "(release_expected_on), when its deadlines start.",
        }),
        release_expected_on: z.iso.date().nullable().openapi({ description: "While queued: the UTC day it should be released." }),
        created_at: Timestamp,
        follow_up_token: z
          .string()
          .max(48)
          .regex(REPORTER_TOKEN_PATTERN)
          .nullable()
          .openapi({
            description:
              "The reporter's key to this report (`vdpr_` and 43 base62 characters): send it as `Authorization: Bearer` to the " +
              "`/v1/p/report` routes to follow the report, read the organization's replies, answer and add files. Shown only in this " +
              "answer and never again (a replay by Idempotency-Key shows null); keep it like a password.",
            example: "vdpr_3kQ9ZrT0bXc1LmN2oP4qR5sT6uV7wX8yZ9aB0cD1eF2",
          }),
      }),
    }),
  })
  .openapi("SubmissionReceipt");

/**
 * What a researcher gets back: the report's shortcode to quote, the follow-up token (or null where it
 * must not be shown again), and nothing of the organization's.
 */
function receipt(record: VulnRecord, followUpToken: string | null) {
  return {
    jsonapi: JSONAPI_VERSION,
    data: {
      type: "vuln" as const,
      id: record.id,
      attributes: {
        shortcode: record.shortcode,
        title: record.title,
        inbox_state: record.inboxState,
        release_expected_on: record.releaseExpectedOn,
        created_at: record.createdAt,
        follow_up_token: followUpToken,
      },
    },
  };
}

/**
 * What the request brings to the brief's gate: the client's address, the proof-of-work solution, and a
 * reporter signature over the exact body bytes (as received: the media-type check read them first).
 */
async function gateInput(c: Context): Promise<GateInput> {
  const key = c.req.header("X-Reporter-Key");
  const signature = c.req.header("X-Reporter-Signature");
  if ((key === undefined) !== (signature === undefined))
    throw new SignatureInvalid("Send X-Reporter-Key and X-Reporter-Signature together, or neither.");
  return {
    address: clientIp(c.req),
    pow: c.req.header("X-Pow-Solution") ?? null,
    signature: key && signature ? { key, signature, payload: new Uint8Array(await c.req.arrayBuffer()) } : null,
  };
}

// It makes a vuln, so it answers as the vuln endpoints do: plain JSON, its 405s to other methods too.
export const publicVulnsRouter = createRouter();
publicVulnsRouter.use("/briefs/:shortcode/vulns", declare({ mediaType: JSON_MEDIA_TYPE }));
publicVulnsRouter.openapi(
  createRoute({
    method: "post",
    path: "/briefs/{shortcode}/vulns",
    operationId: "createPublicVuln",
    tags: ["Public"],
    summary:
      `Submit a report through a published brief (no key; ${RATES.publicSubmits} a minute per client IP); the answer carries the ` +
      `reporter's follow-up token, once`,
    security: [],
    middleware: [publicRateLimit("PUBLIC_SUBMIT_RATE_LIMITER")],
    request: {
      params: z.object({
        shortcode: ShortcodePathParam("DEMX-0001"),
      }),
      body: { required: true, content: jsonContent(PublicSubmissionInput) },
    },
    responses: {
      201: { description: "Received: the vuln's shortcode", content: jsonContent(Receipt) },
      ...errorResponses("write", { public: true, notFound: "Brief not found: unknown shortcode, or a draft", mediaType: JSON_MEDIA_TYPE }),
    },
  }),
  async (c) => {
    const { data } = c.req.valid("json");
    assertDocumentMatches(data, "vuln");
    const shortcode = normalizeShortcode(c.req.valid("param").shortcode);
    if (!shortcode) throw briefNotFound();
    // The answer kept for a replay has null in the token's place: only its hash is stored.
    const stored = (r: VulnRecord) => storedResponse(c, receipt(r, null), 201);
    const { record, token } = await submitReport({
      ctx: serviceContext(c, stored),
      shortcode,
      input: data.attributes,
      raw: await rawSubmission(c),
      gate: await gateInput(c),
    });
    return respond(c, receipt(record, token), 201);
  },
);
