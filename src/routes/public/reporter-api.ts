import { Deadline } from "../v1/vulns/schema";
import { INBOX_STATES, PROCESSING_STATES, SEVERITIES, TRIAGE_STATES } from "../../db/schema";
import type { Responder } from "../../services/unit-of-work";
import { Out, Uuid } from "../../http/openapi/documents";
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { createRouter } from "../../http/router";
import { assertDocumentMatches, collection, pageOf, resource, single, toOne } from "../../http/jsonapi";
import { declaredLength, JOSE_MEDIA_TYPE, respond } from "../../http/media-type";
import { declare } from "../../http/route-facts";
import {
  Binary,
  collectionDocument,
  requestDocument,
  resourceSchema,
  resourceSchemaWithMeta,
  singleDocument,
  Timestamp,
  toOneSchema,
  RecordLink,
  updateDocument,
} from "../../http/openapi/documents";
import { errorResponse, errorResponses, jsonApiBody, jsonApiContent } from "../../http/openapi/responses";
import { pageQuery } from "../../http/openapi/queries";
import { Name } from "../v1/fields";
import { routedLookUp } from "../../http/shard-lookup";
import { REPORTER_PER_MINUTE, reporterAuth, type ReporterEnv as OpenedEnv } from "../../http/reporter-auth";
import { downloadHeaders } from "../../lib/filenames";
import { MAX_BYTES_PER_VULN, MAX_FILE_BYTES, MAX_FILES_PER_VULN, type AttachmentRecord } from "../../services/attachments";
import type { CommentRecord } from "../../services/comments";
import {
  addReporterFile,
  findReport,
  openReporterFile,
  readThread,
  readThreadComment,
  replyAsReporter,
  reporterCaller,
  reporterFile,
  reporterFiles,
  setReporterCredit,
  signReceipt,
  type Report,
} from "../../services/reporter";
import { signTimeline } from "../../services/timeline";

/** A compact JWS: header.payload.signature, each base64url. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
import { creation, serviceContext } from "../v1/handler-helpers";
import { AttachmentAttributes, attachmentAttributes, ContentMeta, UploadQuery } from "../v1/vulns/attachments";
import { CommentAttributes, CommentBody, commentAttributes } from "../v1/vulns/comments";
import { LIMITS, mib } from "../../lib/limits";
import { noStore } from "../../http/middleware";

const tags = ["Reporter"];
// The reporter's answers are its own: never kept by a browser or a shared cache, whatever else ran.
type ReporterEnv = OpenedEnv<Report>;
const auth = [
  declare({ cors: true }),
  noStore(),
  // In a sharded deployment the token's hash finds its report's shard in the catalog first.
  reporterAuth<Report>({ lookUp: routedLookUp("report_token", findReport), caller: reporterCaller }),
];
const security = [{ reporterToken: [] }];
const notFound = "Not found: the report has no such comment or attachment";
const readErrors = errorResponses("read", { notFound });
const writeErrors = errorResponses("write", { notFound: "Not found" });
const { 415: _anyType, 413: tooLarge, 422: invalidInput, ...uploadWriteErrors } = writeErrors;
const uploadErrors = {
  ...uploadWriteErrors,
  413: { ...tooLarge, description: `Payload too large: the file is over ${mib(LIMITS.fileBytes)}; nothing is stored` },
  422: {
    ...invalidInput,
    description:
      `Validation error: filename (at source.parameter), an empty file, or the report's ${LIMITS.filesPerVuln} files / ` +
      `${mib(LIMITS.bytesPerVuln)}; nothing is stored`,
  },
};

const ReportResource = z
  .object({
    type: z.literal("report"),
    id: Uuid,
    attributes: z.object({
      shortcode: Out.vulnShortcode,
      title: z.string().max(LIMITS.titleLength),
      inbox_state: z.string().openapi({
        enum: [...INBOX_STATES],
        description:
          "dispatching, received, then stored once a sealed record of what you sent is kept; queued while the brief's daily intake is " +
          "full: the report is kept and waits for release_expected_on, and the organization's deadlines start at its release.",
      }),
      release_expected_on: z.iso
        .date()
        .max(10)
        .nullable()
        .openapi({ description: "While queued: the UTC day the report is expected to be released to the organization; else null." }),
      processing_state: z.string().openapi({
        enum: [...PROCESSING_STATES],
        description: "open, or closed once the organization closed the report (it may reopen it). A closed report still takes comments.",
      }),
      triage_state: z.enum(TRIAGE_STATES).openapi({
        description:
          "Where the organization's triage stands: new, triaged, needs_more_info (the organization asks you for more: a comment " +
          "answers it), then resolved, duplicate, informative, not_applicable, spam or accepted_risk once closed.",
      }),
      severity: z
        .string()
        .nullable()
        .openapi({ enum: [...SEVERITIES, null] }),
      expectations: z.object({ acknowledge: Deadline, triage: Deadline }).openapi({
        description:
          "What the organization's policy promised for this report: by when it would be acknowledged and triaged, and when it was " +
          "(the organization's deadlines, as it sees them).",
      }),
      created_at: Timestamp,
      updated_at: Timestamp,
      brief_name: Out.name.nullable().openapi({ description: "null if the brief was deleted since." }),
      organization_name: Out.name,
      policy_version: z
        .object({
          number: z.int().min(1).max(Number.MAX_SAFE_INTEGER),
          sha256: z
            .string()
            .length(64)
            .regex(/^[0-9a-f]{64}$/),
          created_at: Timestamp.nullable(),
          url: RecordLink.nullable().openapi({
            description: "Where anyone reads these terms, while the policy is published; null once it is gone.",
          }),
        })
        .nullable()
        .openapi({
          description:
            "The terms in force when you reported: the version of the brief's policy, the SHA-256 of its terms (RFC 8785 canonical " +
            "JSON) and when it was made. null if the brief had no policy.",
        }),
      credit_name: z
        .string()
        .max(LIMITS.nameLength)
        .nullable()
        .openapi({ description: "The name you ask to be credited by in advisories." }),
      credit_consent: z.boolean().openapi({
        description:
          "Whether the organization may credit you (by credit_name) in its advisories about this report. Withdrawn before an " +
          "advisory is published, that advisory does not name you; one already published keeps what it said.",
      }),
      credited_in: z
        .array(z.object({ id: Uuid, title: z.string().max(LIMITS.titleLength), url: RecordLink }))
        .max(100)
        .openapi({ description: "The organization's published advisories that credit you for this report." }),
    }),
    relationships: z.object({}),
    links: z.object({ self: RecordLink }),
  })
  .openapi("Report");

const ReporterComment = resourceSchema("ReporterComment", "comment", CommentAttributes, z.object({ report: toOneSchema("report") }));
const ReporterAttachment = resourceSchemaWithMeta(
  "ReporterAttachment",
  "attachment",
  AttachmentAttributes,
  z.object({ report: toOneSchema("report") }),
  ContentMeta,
);

const CreateReporterCommentInput = requestDocument("comment", z.strictObject({ body: CommentBody }), z.strictObject({}).optional()).openapi(
  "CreateReporterCommentInput",
);
const UpdateReportInput = updateDocument(
  "report",
  z.strictObject({
    credit_name: Name.nullable().optional(),
    credit_consent: z.boolean().optional(),
  }),
  z.strictObject({}).optional(),
).openapi("UpdateReportInput");
const PageQuery = z.strictObject(pageQuery);
const CommentParam = z.object({ comment_id: z.string().openapi({ param: { name: "comment_id", in: "path" }, format: "uuid" }) });
const AttachmentParam = z.object({ attachment_id: z.string().openapi({ param: { name: "attachment_id", in: "path" }, format: "uuid" }) });
/** The terms the report was sent under, with where to read them. */
function policyVersionOf(r: Report) {
  const v = r.policyVersion;
  if (!v) return null;
  const url = v.policy_shortcode ? `/v1/p/policies/${v.policy_shortcode}/versions/${v.number}` : null;
  return { number: v.number, sha256: v.sha256, created_at: v.created_at, url };
}

function serializeReport(r: Report) {
  const attributes = {
    shortcode: r.shortcode,
    title: r.title,
    inbox_state: r.inboxState,
    release_expected_on: r.inboxState === "queued" ? r.releaseExpectedOn : null,
    processing_state: r.processingState,
    triage_state: r.triageState,
    severity: r.severity,
    expectations: r.expectations,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    brief_name: r.briefName,
    organization_name: r.organizationName,
    policy_version: policyVersionOf(r),
    credit_name: r.creditName,
    credit_consent: r.creditConsent,
    credited_in: r.creditedIn.map((a) => ({ ...a, url: `/v1/p/advisories/${a.id}` })),
  };
  return { ...resource("report", r.id, attributes, "/v1/p/report"), type: "report" as const };
}

// The reporter reads the same members as the organization, under its report instead of a vuln.
function serializeComment(row: CommentRecord) {
  return resource("comment", row.id, commentAttributes(row), `/v1/p/report/comments/${row.id}`, { report: toOne("report", row.vulnId) });
}

function serializeAttachment(row: AttachmentRecord) {
  const self = `/v1/p/report/attachments/${row.id}`;
  return {
    ...resource("attachment", row.id, attachmentAttributes(row), self, { report: toOne("report", row.vulnId) }),
    meta: { content_url: `${self}/content` },
  };
}

/** What the reporter's verbs take: the request's context (files need the bucket) and the token's report. */
const reporter = (c: Context<ReporterEnv>, respond?: Responder<never>) => ({
  ctx: { ...serviceContext(c, respond), objects: c.env.ATTACHMENTS },
  report: c.var.report,
});

const route = <R extends Parameters<typeof createRoute>[0]>(r: R) => createRoute({ tags, security, middleware: auth, ...r });
const limits = `${REPORTER_PER_MINUTE} requests a minute per token; answers are never cached`;

/** The reporter's API under /v1/p/report: the follow-up token as a Bearer, one report, no organization key. */
export const reportRouter = createRouter<ReporterEnv>({ rateLimit: REPORTER_PER_MINUTE })
  .openapi(
    route({
      method: "get",
      path: "/",
      operationId: "showReport",
      summary: `The report as its reporter sees it: state, severity, and the brief and organization it went to (${limits})`,
      responses: { 200: { description: "The report", content: jsonApiContent(singleDocument(ReportResource)) }, ...readErrors },
    }),
    (c) => respond(c, single(serializeReport(c.var.report))),
  )
  .openapi(
    route({
      method: "patch",
      path: "/",
      operationId: "updateReport",
      summary:
        `Set how you are credited: credit_name and credit_consent (consent needs a name). The organization may then credit you in an ` +
        `advisory about this report (${limits})`,
      request: { body: jsonApiBody(UpdateReportInput) },
      responses: { 200: { description: "The report", content: jsonApiContent(singleDocument(ReportResource)) }, ...writeErrors },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "report", c.var.report.id);
      const updated = await setReporterCredit(serviceContext(c), c.var.report, data.attributes ?? {});
      return respond(c, single(serializeReport(updated)));
    },
  )
  .openapi(
    route({
      method: "get",
      path: "/receipt",
      operationId: "showReportReceipt",
      summary:
        "The reporter's signed receipt: a compact JWS (alg EdDSA, typ vdp-receipt+jwt) stating the report, its organization and " +
        "brief, when it was received, the SHA-256 of the record as received, and the acknowledge, triage and disclosure due times; " +
        "verify it with the keys at /.well-known/vdp-keys.json and any JOSE library",
      responses: {
        200: {
          description: "The receipt",
          content: {
            [JOSE_MEDIA_TYPE]: {
              schema: z
                .string()
                .max(4096)
                .regex(COMPACT_JWS)
                .openapi({
                  description:
                    "header.payload.signature, each base64url. The payload: report (the shortcode), organization {id, name}, brief " +
                    "{id, name}, received_at, record_sha256, policy_version (null: not kept yet), deadlines {acknowledge, triage, " +
                    "disclosure} (due times as of iat), iat.",
                }),
            },
          },
        },
        409: errorResponse("The report is still being recorded: ask again once its inbox_state is stored"),
        ...readErrors,
      },
    }),
    async (c) => c.body(await signReceipt(c.var.report, c.env.RECEIPT_SIGNING_KEY), 200, { "Content-Type": JOSE_MEDIA_TYPE }),
  )
  .openapi(
    route({
      method: "get",
      path: "/timeline",
      operationId: "showReportTimeline",
      summary:
        "The report's signed timeline: a compact JWS (alg EdDSA, typ vdp-timeline+jwt) of every fact that concerns the reporter, " +
        "oldest first, each entry carrying the SHA-256 of the one before it; verify it like the receipt",
      responses: {
        200: {
          description: "The timeline",
          content: {
            [JOSE_MEDIA_TYPE]: {
              schema: z
                .string()
                .max(1024 * 1024)
                .regex(COMPACT_JWS)
                .openapi({
                  description:
                    "The payload: report (the shortcode), entries, iat. Each entry is flat: type (received, stored, acknowledged, " +
                    "triage_changed, comment, deadline_met, deadline_breached), at, what the type adds (record_sha256; from and to; " +
                    "author and sha256, the SHA-256 of the comment's text; deadline), and prev_sha256: the SHA-256 (hex) of the " +
                    "previous entry's RFC 8785 canonical JSON, null for the first.",
                }),
            },
          },
        },
        ...readErrors,
      },
    }),
    async (c) =>
      c.body(await signTimeline(c.var.database.db, c.var.report, { keys: c.env.RECEIPT_SIGNING_KEY }), 200, {
        "Content-Type": JOSE_MEDIA_TYPE,
      }),
  )
  .openapi(
    route({
      method: "get",
      path: "/comments",
      operationId: "listReportComments",
      summary:
        "The conversation: the organization's replies to the reporter and the reporter's own comments, oldest first (never the " +
        "organization's internal notes)",
      request: { query: PageQuery },
      responses: { 200: { description: "Comments", content: jsonApiContent(collectionDocument(ReporterComment)) }, ...readErrors },
    }),
    async (c) => {
      const page = pageOf(c.req.valid("query"));
      const { rows, total } = await readThread({ ...reporter(c), page });
      return respond(c, collection(c, rows.map(serializeComment), page, total));
    },
  )
  .openapi(
    route({
      method: "post",
      path: "/comments",
      operationId: "createReportComment",
      summary:
        "Answer the organization (also on a closed report); its webhooks get Vuln::Comment::Created. A report waiting in " +
        "needs_more_info goes back to the state it was in",
      request: { body: jsonApiBody(CreateReporterCommentInput) },
      responses: { 201: { description: "Created", content: jsonApiContent(singleDocument(ReporterComment)) }, ...writeErrors },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "comment");
      const answer = creation(c, serializeComment);
      const record = await replyAsReporter({ ...reporter(c, answer.respond), body: data.attributes.body });
      return answer.created(record);
    },
  )
  .openapi(
    route({
      method: "get",
      path: "/comments/{comment_id}",
      operationId: "showReportComment",
      summary: "One comment of the conversation",
      request: { params: CommentParam },
      responses: { 200: { description: "The comment", content: jsonApiContent(singleDocument(ReporterComment)) }, ...readErrors },
    }),
    async (c) =>
      respond(c, single(serializeComment(await readThreadComment({ ...reporter(c), commentId: c.req.valid("param").comment_id })))),
  )
  .openapi(
    route({
      method: "get",
      path: "/attachments",
      operationId: "listReportAttachments",
      summary: "Every file of the report, the reporter's and the organization's, newest first",
      request: { query: PageQuery },
      responses: { 200: { description: "Attachments", content: jsonApiContent(collectionDocument(ReporterAttachment)) }, ...readErrors },
    }),
    async (c) => {
      const page = pageOf(c.req.valid("query"));
      const { rows, total } = await reporterFiles({ ...reporter(c), page });
      return respond(c, collection(c, rows.map(serializeAttachment), page, total));
    },
  )
  .openapi(
    route({
      method: "post",
      path: "/attachments",
      operationId: "createReportAttachment",
      middleware: [...auth, declare({ rawUpload: { maxBytes: MAX_FILE_BYTES } })],
      summary: "Add a file to the report: the body is the file, Content-Type its type; the organization's webhooks get Vuln::Updated",
      description:
        `As the organization's upload: at most ${MAX_FILE_BYTES} bytes (${mib(MAX_FILE_BYTES)}) a file, ${MAX_FILES_PER_VULN} files ` +
        `and ${MAX_BYTES_PER_VULN} bytes (${mib(MAX_BYTES_PER_VULN)}) a report, counting both sides' files.`,
      request: {
        query: UploadQuery,
        body: { required: true, content: { "application/octet-stream": { schema: Binary }, "*/*": { schema: Binary } } },
      },
      responses: { 201: { description: "Stored", content: jsonApiContent(singleDocument(ReporterAttachment)) }, ...uploadErrors },
    }),
    async (c) => {
      const meta = {
        filename: c.req.valid("query").filename,
        contentType: c.req.header("content-type"),
        declaredLength: declaredLength(c),
      };
      // A body already read on the way here (to hash it for an Idempotency-Key) streams from Hono's copy.
      const body = c.req.raw.bodyUsed ? new Blob([await c.req.arrayBuffer()]).stream() : c.req.raw.body;
      const answer = creation(c, serializeAttachment);
      const record = await addReporterFile({ ...reporter(c, answer.respond), body, meta });
      return answer.created(record);
    },
  )
  .openapi(
    route({
      method: "get",
      path: "/attachments/{attachment_id}",
      operationId: "showReportAttachment",
      summary: "One file's metadata",
      request: { params: AttachmentParam },
      responses: { 200: { description: "The attachment", content: jsonApiContent(singleDocument(ReporterAttachment)) }, ...readErrors },
    }),
    async (c) =>
      respond(c, single(serializeAttachment(await reporterFile({ ...reporter(c), attachmentId: c.req.valid("param").attachment_id })))),
  )
  .openapi(
    route({
      method: "get",
      path: "/attachments/{attachment_id}/content",
      operationId: "downloadReportAttachment",
      summary: "Download a file's bytes (always as a download)",
      request: { params: AttachmentParam },
      responses: {
        200: {
          description: "The bytes; Content-Type only from an allow-list of inert types, else application/octet-stream",
          content: { "application/octet-stream": { schema: Binary }, "*/*": { schema: Binary } },
        },
        ...readErrors,
      },
    }),
    async (c) => {
      const { record, body } = await openReporterFile({ ...reporter(c), attachmentId: c.req.valid("param").attachment_id });
      return c.body(body, 200, downloadHeaders(record));
    },
  );

reportRouter.openAPIRegistry.registerComponent("securitySchemes", "reporterToken", {
  type: "http",
  scheme: "bearer",
  description:
    "A reporter's follow-up token: `vdpr_` and 43 base62 characters, shown once in the answer to a public submission. It opens that " +
    "one report (the routes under `/v1/p/report`) and nothing else; an API key is refused there, and the token is refused everywhere else.",
});
