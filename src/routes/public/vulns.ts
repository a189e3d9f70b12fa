import { createRoute, z } from "@hono/zod-openapi";
import { assertDocumentMatches, JSONAPI_VERSION } from "../../http/jsonapi";
import { JSON_MEDIA_TYPE, respond } from "../../http/media-type";
import { errorResponses, jsonContent, requestDocument, Timestamp } from "../../http/openapi";
import { createRouter } from "../../http/router";
import { normalizeShortcode } from "../../lib/ids";
import type { VulnRecord } from "../../services/vulns";
import { createVuln } from "../../services/vulns";
import { serviceContext, storedResponse } from "../v1/handler-helpers";
import { rawSubmission, SubmissionAttributes } from "../v1/vulns/schema";
import { briefNotFound } from "./briefs";
import { publicRateLimit } from "../../http/rate-limit";

const PublicSubmissionInput = requestDocument(SubmissionAttributes, z.strictObject({}).optional()).openapi("PublicSubmissionInput");

const Receipt = z
  .object({
    jsonapi: z.object({ version: z.literal("1.1") }),
    data: z.object({
      type: z.literal("vuln"),
      id: z.string().openapi({ format: "uuid" }),
      attributes: z.object({ shortcode: z.string(), title: z.string(), inbox_state: z.string(), created_at: Timestamp }),
    }),
  })
  .openapi("SubmissionReceipt");

/** What a researcher gets back: the report's shortcode to quote, and nothing of the organization's. */
function receipt(record: VulnRecord) {
  return {
    jsonapi: JSONAPI_VERSION,
    data: {
      type: "vuln" as const,
      id: record.id,
      attributes: { shortcode: record.shortcode, title: record.title, inbox_state: record.inboxState, created_at: record.createdAt },
    },
  };
}

export const publicVulnsRouter = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/briefs/{shortcode}/vulns",
    tags: ["Public"],
    summary: "Submit a report through a published brief (no key; 5 a minute per client IP)",
    security: [],
    middleware: [publicRateLimit("PUBLIC_SUBMIT_RATE_LIMITER", 5)],
    request: {
      params: z.object({ shortcode: z.string().openapi({ param: { name: "shortcode", in: "path" }, example: "DEMX-0001" }) }),
      body: { required: true, content: jsonContent(PublicSubmissionInput) },
    },
    responses: { 201: { description: "Received: the vuln's shortcode", content: jsonContent(Receipt) }, ...errorResponses("write", { public: true, notFound: "Brief not found: unknown shortcode, or a draft", mediaType: JSON_MEDIA_TYPE }) },
  }),
  async (c) => {
    const { data } = c.req.valid("json");
    assertDocumentMatches(data, "vuln");
    const shortcode = normalizeShortcode(c.req.valid("param").shortcode);
    if (!shortcode) throw briefNotFound();
    const record = await createVuln(serviceContext(c), data.attributes, { shortcode }, await rawSubmission(c), (r) => storedResponse(c, receipt(r), 201));
    return respond(c, receipt(record), 201);
  },
);
