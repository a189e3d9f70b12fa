import { createRoute, z } from "@hono/zod-openapi";
import { requireOrganizationKey } from "../../../http/auth";
import { assertDocumentMatches, collection, pageOf, resource, single, toOne } from "../../../http/jsonapi";
import { JSON_MEDIA_TYPE, respond } from "../../../http/media-type";
import {
  collectionDocument,
  requestDocument,
  resourceSchema,
  singleDocument,
  Timestamp,
  toOneSchema,
} from "../../../http/openapi/documents";
import { errorResponses, jsonContent } from "../../../http/openapi/responses";
import { pageQuery } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { REGULATORY_REPORT_KINDS, type RegulatoryReportRow } from "../../../db/schema";
import { LIMITS } from "../../../lib/limits";
import {
  createRegulatoryReport,
  draftRegulatoryReport,
  getRegulatoryReport,
  listRegulatoryReports,
} from "../../../services/regulatory-reports";
import { vulnIdOf } from "../../../services/vulns/read";
import { DateTimeInput, SingleLine } from "../fields";
import { creation, serviceContext } from "../handler-helpers";
import { Deadline, VulnParam, VulnRef } from "./schema";

const tags = ["Regulatory reports"];
const errors = { notFound: "Vuln not found (vuln_not_found)", mediaType: JSON_MEDIA_TYPE };

const Kind = z.enum(REGULATORY_REPORT_KINDS).openapi({
  description:
    "early_warning (within 24 hours of knowing of the exploitation), notification (within 72 hours), final_report (within 14 days of " +
    "a fix).",
});

const RegulatoryReport = resourceSchema(
  "RegulatoryReport",
  "regulatory_report",
  z.object({
    kind: Kind,
    submitted_at: Timestamp.openapi({ description: "When it was filed with the authority." }),
    reference: z.string().max(LIMITS.regulatoryReferenceLength).nullable().openapi({ description: "The authority's reference, if any." }),
    body: z.string().max(LIMITS.regulatoryReportLength).openapi({ description: "The text filed." }),
    created_at: Timestamp.openapi({
      description: "When it was recorded here (set by the platform; submitted_at is the organization's word).",
    }),
  }),
  z.object({ vuln: toOneSchema("vuln") }),
);

const CreateRegulatoryReportInput = requestDocument(
  "regulatory_report",
  z.strictObject({
    kind: Kind,
    submitted_at: DateTimeInput.openapi({
      description: "When it was filed with the authority: never in the future, nor before the vuln's exploitation_known_at.",
    }),
    reference: SingleLine.max(LIMITS.regulatoryReferenceLength, `must be at most ${LIMITS.regulatoryReferenceLength} characters`)
      .nullable()
      .optional(),
    body: z
      .string()
      .min(1, "must not be empty")
      .max(LIMITS.regulatoryReportLength, `must be at most ${LIMITS.regulatoryReportLength} characters`)
      .refine((s) => s.trim() !== "", "must not be only white space")
      .openapi({ description: `The text filed, 1 to ${LIMITS.regulatoryReportLength} characters.` }),
  }),
  z.strictObject({}).optional(),
).openapi("CreateRegulatoryReportInput");

const FIELD_NAME = /^[a-z][a-z_]*$/;
const DraftField = z.object({
  name: z.string().max(40).regex(FIELD_NAME),
  label: z.string().max(200),
  value: z
    .string()
    .max(LIMITS.titleLength + 100)
    .nullable()
    .openapi({ description: "null: the organization must complete it." }),
});

const RegulatoryReportDraft = resourceSchema(
  "RegulatoryReportDraft",
  "regulatory_report_draft",
  z.object({
    kind: Kind,
    deadline: Deadline.openapi({ description: "The kind's deadline while the vuln is actively exploited; state none otherwise." }),
    fields: z.array(DraftField).max(20),
    body: z.string().max(4000).openapi({ description: "The text to file, each field still to complete marked [to complete: ...]." }),
  }),
  z.object({ vuln: toOneSchema("vuln") }),
);

const DraftDocument = singleDocument(RegulatoryReportDraft).extend({
  meta: z.object({
    missing: z
      .array(z.string().max(40).regex(FIELD_NAME))
      .max(20)
      .openapi({ description: "The names of the fields the organization must still complete." }),
  }),
});

function serializeRegulatoryReport(row: RegulatoryReportRow) {
  return resource(
    "regulatory_report",
    row.id,
    { kind: row.kind, submitted_at: row.submittedAt, reference: row.reference, body: row.body, created_at: row.createdAt },
    `/v1/vulns/${row.vulnId}/regulatory_reports/${row.id}`,
    { vuln: toOne("vuln", row.vulnId) },
  );
}

export const regulatoryReportsRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/regulatory_reports",
      operationId: "listRegulatoryReports",
      tags,
      summary: "List what the organization filed about a vuln under the EU Cyber Resilience Act, oldest first",
      request: { params: VulnParam, query: z.strictObject({ ...pageQuery }) },
      responses: {
        200: { description: "Regulatory reports", content: jsonContent(collectionDocument(RegulatoryReport)) },
        ...errorResponses("read", { ...errors, scope: "read" }),
      },
    }),
    async (c) => {
      const page = pageOf(c.req.valid("query"));
      const ctx = serviceContext(c);
      const { rows, total } = await listRegulatoryReports(ctx, await vulnIdOf(ctx, c.req.valid("param").id), page);
      return respond(c, collection(c, rows.map(serializeRegulatoryReport), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/regulatory_reports",
      operationId: "createRegulatoryReport",
      tags,
      summary:
        "Record what the organization filed with an authority (the platform sends nothing); the first filing of a kind meets the " +
        "vuln's deadline of that kind at its submitted_at (organization key only)",
      middleware: [requireOrganizationKey("regulatory reports")],
      request: { params: VulnParam, body: { required: true, content: jsonContent(CreateRegulatoryReportInput) } },
      responses: {
        201: { description: "Recorded", content: jsonContent(singleDocument(RegulatoryReport)) },
        ...errorResponses("write", { ...errors, access: "organization", scope: "vulns" }),
      },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "regulatory_report");
      const answer = creation(c, serializeRegulatoryReport);
      const ctx = serviceContext(c);
      const vulnId = await vulnIdOf(ctx, c.req.valid("param").id);
      return answer.created(await createRegulatoryReport({ ...ctx, respond: answer.respond }, vulnId, data.attributes));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/regulatory_reports/draft",
      operationId: "showRegulatoryReportDraft",
      tags,
      summary:
        "The text to file for a kind, filled from the vuln (title, CWE, CVSS, severity, whether a fix is out, the dates), with every " +
        "field the organization must still complete in meta.missing",
      request: {
        params: VulnParam,
        query: z.strictObject({ kind: Kind.openapi({ param: { name: "kind", in: "query", required: true } }) }),
      },
      responses: {
        200: { description: "The draft", content: jsonContent(DraftDocument) },
        ...errorResponses("read", { ...errors, scope: "read" }),
      },
    }),
    async (c) => {
      const { kind } = c.req.valid("query");
      const ctx = serviceContext(c);
      const draft = await draftRegulatoryReport(ctx, await vulnIdOf(ctx, c.req.valid("param").id), kind);
      const id = draft.vuln.id;
      const data = resource(
        "regulatory_report_draft",
        id,
        { kind, deadline: draft.deadline, fields: draft.fields, body: draft.body },
        `/v1/vulns/${id}/regulatory_reports/draft?kind=${kind}`,
        { vuln: toOne("vuln", id) },
      );
      return respond(c, { ...single(data), meta: { missing: draft.missing } });
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/regulatory_reports/{report_id}",
      operationId: "showRegulatoryReport",
      tags,
      summary: "Show one filing",
      request: {
        params: z.object({
          id: VulnRef,
          report_id: z.string().openapi({ param: { name: "report_id", in: "path" }, format: "uuid" }),
        }),
      },
      responses: {
        200: { description: "The filing", content: jsonContent(singleDocument(RegulatoryReport)) },
        ...errorResponses("read", {
          ...errors,
          notFound: "Vuln not found (vuln_not_found), or the vuln has no such filing (not_found)",
          scope: "read",
        }),
      },
    }),
    async (c) => {
      const { id, report_id } = c.req.valid("param");
      const ctx = serviceContext(c);
      return respond(c, single(serializeRegulatoryReport(await getRegulatoryReport(ctx, await vulnIdOf(ctx, id), report_id))));
    },
  );
