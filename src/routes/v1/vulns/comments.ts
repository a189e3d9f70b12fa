import { LIMITS } from "../../../lib/limits";
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
import { COMMENT_AUTHORS, COMMENT_VISIBILITIES } from "../../../db/schema";
import { createComment, deleteComment, getComment, listComments, MAX_COMMENT_LENGTH, type CommentRecord } from "../../../services/comments";
import { creation, noContent, serviceContext } from "../handler-helpers";
import { vulnIdOf } from "../../../services/vulns/read";
import { VulnParam, VulnRef } from "./schema";

const tags = ["Vuln comments"];
const organizationOnly = [requireOrganizationKey("comments")];
const errors = { notFound: "Vuln not found (vuln_not_found), or the vuln has no such comment (not_found)", mediaType: JSON_MEDIA_TYPE };
const readErrors = errorResponses("read", { ...errors, scope: "read" });
const writeErrors = errorResponses("write", { ...errors, access: "organization", scope: "vulns" });
const deleteErrors = errorResponses("read", { ...errors, access: "organization", scope: "vulns" });

/** A comment's text: 1 to 20,000 characters, not only white space. */
export const CommentBody = z
  .string()
  .min(1, "must not be empty")
  .max(MAX_COMMENT_LENGTH, `must be at most ${MAX_COMMENT_LENGTH} characters`)
  .refine((s) => s.trim() !== "", "must not be only white space")
  .openapi({
    description: `The text, 1 to ${MAX_COMMENT_LENGTH} characters (plain text; clients must not render it as HTML).`,
    example: "Thanks: we reproduced it and are working on a fix.",
  });

const CommentParams = z.object({
  id: VulnRef,
  comment_id: z.string().openapi({ param: { name: "comment_id", in: "path" }, format: "uuid" }),
});

/** A comment's members, the same through either door (the organization's API and the reporter's). */
export const CommentAttributes = z.object({
  body: z.string().max(LIMITS.commentLength),
  visibility: z.enum(COMMENT_VISIBILITIES).openapi({
    description: "internal: the organization's note, never shown to the reporter; reporter: part of the conversation with the reporter.",
  }),
  author: z
    .enum(COMMENT_AUTHORS)
    .openapi({ description: "Read-only: which side wrote it. The reporter never learns which key wrote a reply." }),
  created_at: Timestamp,
});

export const Comment = resourceSchema("Comment", "comment", CommentAttributes, z.object({ vuln: toOneSchema("vuln") }));

const CreateCommentInput = requestDocument(
  "comment",
  z.strictObject({
    body: CommentBody,
    visibility: z.enum(COMMENT_VISIBILITIES).optional().openapi({ description: "Defaults to internal." }),
  }),
  z.strictObject({}).optional(),
).openapi("CreateCommentInput");

const ListCommentsQuery = z.strictObject({
  ...pageQuery,
  sort: z
    .enum(["created_at", "-created_at"])
    .optional()
    .openapi({ param: { name: "sort", in: "query" }, example: "created_at" }),
});

/** A comment's members, the same through either door (the organization's API and the reporter's). */
export function commentAttributes(row: CommentRecord) {
  return { body: row.body, visibility: row.visibility, author: row.author, created_at: row.createdAt };
}

export function serializeComment(row: CommentRecord) {
  return resource("comment", row.id, commentAttributes(row), `/v1/vulns/${row.vulnId}/comments/${row.id}`, {
    vuln: toOne("vuln", row.vulnId),
  });
}

export const commentsRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/comments",
      operationId: "listVulnComments",
      tags,
      summary: "List a vuln's comments, internal and reporter-visible, oldest first (sort=-created_at for newest first)",
      request: { params: VulnParam, query: ListCommentsQuery },
      responses: { 200: { description: "Comments", content: jsonContent(collectionDocument(Comment)) }, ...readErrors },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const ctx = serviceContext(c);
      const vulnId = await vulnIdOf(ctx, c.req.valid("param").id);
      const { rows, total } = await listComments(ctx, { author: "organization", vulnId }, { page, sort: query.sort });
      return respond(c, collection(c, rows.map(serializeComment), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/comments",
      operationId: "createVulnComment",
      tags,
      summary:
        "Comment on a vuln: an internal note (the default) or, with visibility reporter, a reply the reporter reads (a 422 on a vuln " +
        "entered through POST /v1/vulns, which has no reporter); fires Vuln::Comment::Created (organization key only)",
      middleware: organizationOnly,
      request: { params: VulnParam, body: { required: true, content: jsonContent(CreateCommentInput) } },
      responses: { 201: { description: "Created", content: jsonContent(singleDocument(Comment)) }, ...writeErrors },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "comment");
      const input = { body: data.attributes.body, visibility: data.attributes.visibility ?? ("internal" as const) };
      const answer = creation(c, serializeComment);
      const ctx = serviceContext(c);
      const vulnId = await vulnIdOf(ctx, c.req.valid("param").id);
      const record = await createComment({ ...ctx, respond: answer.respond }, { author: "organization", vulnId }, input);
      return answer.created(record);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/comments/{comment_id}",
      operationId: "showVulnComment",
      tags,
      summary: "Show a comment",
      request: { params: CommentParams },
      responses: { 200: { description: "The comment", content: jsonContent(singleDocument(Comment)) }, ...readErrors },
    }),
    async (c) => {
      const { id, comment_id } = c.req.valid("param");
      const ctx = serviceContext(c);
      return respond(c, single(serializeComment(await getComment(ctx, await vulnIdOf(ctx, id), comment_id))));
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}/comments/{comment_id}",
      operationId: "deleteVulnComment",
      tags,
      summary: "Delete a comment; a reporter-visible one disappears from the reporter's view too (organization key only)",
      middleware: organizationOnly,
      request: { params: CommentParams },
      responses: { 204: { description: "Deleted" }, ...deleteErrors },
    }),
    async (c) => {
      const { id, comment_id } = c.req.valid("param");
      const ctx = serviceContext(c);
      await deleteComment(ctx, await vulnIdOf(ctx, id), comment_id);
      return noContent(c);
    },
  );
