import { MAX_FILENAME_LENGTH, STORED_CONTENT_TYPE } from "../../../lib/filenames";
import { RecordLink } from "../../../http/openapi/documents";
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../../http/app-env";
import { requireOrganizationKey } from "../../../http/auth";
import { collection, pageOf, resource, single, toOne } from "../../../http/jsonapi";
import { declaredLength, JSON_MEDIA_TYPE, respond } from "../../../http/media-type";
import { declare } from "../../../http/route-facts";
import {
  Binary,
  collectionDocument,
  resourceSchemaWithMeta,
  singleDocument,
  Timestamp,
  toOneSchema,
} from "../../../http/openapi/documents";
import { errorResponses, jsonContent } from "../../../http/openapi/responses";
import { listQuery } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { downloadHeaders } from "../../../lib/filenames";
import { UPLOADERS } from "../../../db/schema";
import {
  deleteAttachment,
  getAttachment,
  listAttachments,
  MAX_BYTES_PER_VULN,
  MAX_FILE_BYTES,
  MAX_FILES_PER_VULN,
  openAttachmentContent,
  uploadAttachment,
  type AttachmentContext,
  type AttachmentRecord,
} from "../../../services/attachments";
import { creation, noContent, serviceContext } from "../handler-helpers";
import { LIMITS, mib } from "../../../lib/limits";
import { vulnIdOf } from "../../../services/vulns/read";
import { VulnParam, VulnRef } from "./schema";

const tags = ["Vuln attachments"];
const organizationOnly = [requireOrganizationKey("vulns")];
const errors = { notFound: "Vuln not found (vuln_not_found), or the vuln has no such attachment (not_found)", mediaType: JSON_MEDIA_TYPE };
const readErrors = errorResponses("read", { ...errors, scope: "read" });
const deleteErrors = errorResponses("read", { ...errors, access: "organization", scope: "vulns" });
// Any Content-Type is a file's type here, so no 415; the 413 is the file limit, not the JSON one.
const {
  415: _anyType,
  413: tooLarge,
  422: invalidInput,
  ...uploadWriteErrors
} = errorResponses("write", { ...errors, access: "organization", scope: "vulns" });
const uploadErrors = {
  ...uploadWriteErrors,
  413: {
    ...tooLarge,
    description: `Payload too large: the file is over ${mib(LIMITS.fileBytes)} (by Content-Length or as streamed); nothing is stored`,
  },
  422: {
    ...invalidInput,
    description:
      `Validation error: filename (at source.parameter), an empty file, or the vuln's ${LIMITS.filesPerVuln} files / ` +
      `${mib(LIMITS.bytesPerVuln)}; nothing is stored`,
  },
};

const AttachmentParams = z.object({
  id: VulnRef,
  attachment_id: z.string().openapi({ param: { name: "attachment_id", in: "path" }, format: "uuid" }),
});

/** A file's members, the same through either door (the organization's API and the reporter's). */
export const AttachmentAttributes = z.object({
  filename: z.string().max(MAX_FILENAME_LENGTH).openapi({ example: "poc.txt" }),
  content_type: z.string().max(142).regex(STORED_CONTENT_TYPE).openapi({ example: "text/plain" }),
  byte_size: z.number().int().min(1).max(MAX_FILE_BYTES),
  sha256: z
    .string()
    .length(64)
    .regex(/^[0-9a-f]{64}$/)
    .openapi({
      description: "Lowercase hex SHA-256 of the bytes, computed as they were received.",
      example: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    }),
  uploaded_by: z.enum(UPLOADERS),
  created_at: Timestamp,
});

/** Where to GET a file's bytes: in meta, as JSON:API 1.1 allows only `self` among a resource's links. */
export const ContentMeta = z.object({
  content_url: RecordLink.openapi({ description: "GET it for the bytes (with the same key or token)." }),
});

export const Attachment = resourceSchemaWithMeta(
  "Attachment",
  "attachment",
  AttachmentAttributes,
  z.object({ vuln: toOneSchema("vuln") }),
  ContentMeta,
);

const ListAttachmentsQuery = listQuery({
  sort: z
    .enum(["created_at", "-created_at"])
    .optional()
    .openapi({ param: { name: "sort", in: "query" }, example: "-created_at" }),
});
/** An upload's query, the same through either door: the file's name. */
export const UploadQuery = z.strictObject({
  filename: z
    .string()
    .max(4096, "must be at most 4096 characters")
    .optional()
    .openapi({
      param: { name: "filename", in: "query", required: true },
      description:
        `The file's name: path separators (and the directories before them) and control characters are removed; 1 to ` +
        `${MAX_FILENAME_LENGTH} characters must remain.`,
      example: "poc.txt",
    }),
});

/** A file's members, the same through either door (the organization's API and the reporter's). */
export function attachmentAttributes(row: AttachmentRecord) {
  return {
    filename: row.filename,
    content_type: row.contentType,
    byte_size: row.byteSize,
    sha256: row.sha256,
    uploaded_by: row.uploadedBy,
    created_at: row.createdAt,
  };
}

export function serializeAttachment(row: AttachmentRecord) {
  const self = `/v1/vulns/${row.vulnId}/attachments/${row.id}`;
  return {
    ...resource("attachment", row.id, attachmentAttributes(row), self, { vuln: toOne("vuln", row.vulnId) }),
    meta: { content_url: `${self}/content` },
  };
}

function attachmentContext(c: Context<AppEnv>): AttachmentContext {
  return { ...serviceContext(c), objects: c.env.ATTACHMENTS };
}

export const attachmentsRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/attachments",
      operationId: "listVulnAttachments",
      tags,
      summary: "List a vuln's attachments, newest first",
      request: { params: VulnParam, query: ListAttachmentsQuery },
      responses: { 200: { description: "Attachments", content: jsonContent(collectionDocument(Attachment)) }, ...readErrors },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const ctx = serviceContext(c);
      const { rows, total } = await listAttachments(ctx, await vulnIdOf(ctx, c.req.valid("param").id), { page, sort: query.sort });
      return respond(c, collection(c, rows.map(serializeAttachment), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/attachments",
      operationId: "createVulnAttachment",
      tags,
      summary: `Attach a file: the body is the file, Content-Type its type (organization key only)`,
      description:
        `The raw bytes, streamed to storage while their SHA-256 is computed. At most ${MAX_FILE_BYTES} bytes ` +
        `(${mib(MAX_FILE_BYTES)}) a file, ` +
        `${MAX_FILES_PER_VULN} files and ${MAX_BYTES_PER_VULN} bytes (${mib(MAX_BYTES_PER_VULN)}) a vuln. With an Idempotency-Key, ` +
        `the key covers the bytes and the filename. ` +
        "Attaching does not change the vuln: no Vuln::Updated, updated_at unchanged.",
      middleware: [...organizationOnly, declare({ rawUpload: { maxBytes: MAX_FILE_BYTES } })],
      request: {
        params: VulnParam,
        query: UploadQuery,
        body: { required: true, content: { "application/octet-stream": { schema: Binary }, "*/*": { schema: Binary } } },
      },
      responses: { 201: { description: "Stored", content: jsonContent(singleDocument(Attachment)) }, ...uploadErrors },
    }),
    async (c) => {
      const { filename } = c.req.valid("query");
      const meta = { filename, contentType: c.req.header("content-type"), declaredLength: declaredLength(c) };
      const answer = creation(c, serializeAttachment);
      const record = await uploadAttachment({
        ctx: { ...attachmentContext(c), respond: answer.respond },
        vulnId: await vulnIdOf(serviceContext(c), c.req.valid("param").id),
        body: c.req.raw.body,
        meta,
        by: "organization",
      });
      return answer.created(record);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/attachments/{attachment_id}",
      operationId: "showVulnAttachment",
      tags,
      summary: "Show an attachment's metadata",
      request: { params: AttachmentParams },
      responses: { 200: { description: "The attachment", content: jsonContent(singleDocument(Attachment)) }, ...readErrors },
    }),
    async (c) => {
      const { id, attachment_id } = c.req.valid("param");
      const ctx = serviceContext(c);
      return respond(c, single(serializeAttachment(await getAttachment(ctx, await vulnIdOf(ctx, id), attachment_id))));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/attachments/{attachment_id}/content",
      operationId: "downloadVulnAttachment",
      tags,
      summary: "Download an attachment's bytes (always as a download, never rendered as this API's origin)",
      request: { params: AttachmentParams },
      responses: {
        200: {
          description:
            "The bytes. Content-Type is the stored type only if it is inert (plain text, images but SVG, PDF, JSON, archives, " +
            "video); anything else is application/octet-stream.",
          headers: {
            "Content-Disposition": {
              description: "attachment, with an ASCII filename and an RFC 5987 filename*",
              // Both forms of a 255-character name, percent-encoded UTF-8 at worst: under 4 KiB.
              schema: { type: "string", maxLength: 4096 },
            },
            "X-Content-Type-Options": { schema: { type: "string", enum: ["nosniff"] } },
            "Content-Security-Policy": { schema: { type: "string", enum: ["sandbox"] } },
          },
          content: { "application/octet-stream": { schema: Binary }, "*/*": { schema: Binary } },
        },
        ...readErrors,
      },
    }),
    async (c) => {
      const { id, attachment_id } = c.req.valid("param");
      const ctx = attachmentContext(c);
      const { record, body } = await openAttachmentContent(ctx, await vulnIdOf(ctx, id), attachment_id);
      return c.body(body, 200, downloadHeaders(record));
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}/attachments/{attachment_id}",
      operationId: "deleteVulnAttachment",
      tags,
      summary: "Delete an attachment (organization key only)",
      middleware: organizationOnly,
      request: { params: AttachmentParams },
      responses: { 204: { description: "Deleted" }, ...deleteErrors },
    }),
    async (c) => {
      const { id, attachment_id } = c.req.valid("param");
      const ctx = attachmentContext(c);
      await deleteAttachment(ctx, await vulnIdOf(ctx, id), attachment_id);
      return noContent(c);
    },
  );
