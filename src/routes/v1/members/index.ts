import { createRoute } from "@hono/zod-openapi";
import { requireOrganizationKey } from "../../../http/auth";
import { assertDocumentMatches, collection, pageOf, single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { collectionDocument, singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonApiBody, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { LIMITS } from "../../../lib/limits";
import type { MemberRow } from "../../../db/schema";
import {
  createMember,
  deleteMember,
  getMember,
  listMembers,
  resendInvitation,
  revokeMemberSessions,
  updateMember,
} from "../../../services/members";
import { creation, noContent, serviceContext, storedResponse } from "../handler-helpers";
import { CreateMemberInput, ListMembersQuery, Member, serializeMember, UpdateMemberInput } from "./schema";

const tags = ["Members"];
// Members are who signs in for the organization: operators read them, never change them.
const organizationOnly = [requireOrganizationKey("members")];
const writeErrors = errorResponses("write", { access: "organization", scope: "members" });
const MemberDocument = singleDocument(Member);

export const membersRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listMembers",
      tags,
      summary: "List the organization's members: the people who sign in for it",
      request: { query: ListMembersQuery },
      responses: {
        200: { description: "Members", content: jsonApiContent(collectionDocument(Member)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listMembers(serviceContext(c), {
        page,
        sort: query.sort,
        role: query["q[role_eq]"],
        joined: query["q[joined_eq]"],
        email: query["q[email_eq]"],
        organizationId: query["q[organization_id_eq]"],
      });
      return respond(c, collection(c, rows.map(serializeMember), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showMember",
      tags,
      summary: "Show a member",
      request: { params: IdParam },
      responses: {
        200: { description: "The member", content: jsonApiContent(MemberDocument) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => respond(c, single(serializeMember(await getMember(serviceContext(c), c.req.valid("param").id)))),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createMember",
      tags,
      summary:
        `Invite a member (at most ${LIMITS.membersPerOrganization}): their address gets one invitation e-mail, whose page's button ` +
        `sets joined_at (organization key only)`,
      middleware: organizationOnly,
      request: { body: jsonApiBody(CreateMemberInput) },
      responses: { 201: { description: "Created, invited", content: jsonApiContent(MemberDocument) }, ...writeErrors },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "member");
      const answer = creation(c, serializeMember);
      const organization = data.relationships?.organization?.data.id;
      return answer.created(await createMember(serviceContext(c, answer.respond), data.attributes, organization));
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      operationId: "updateMember",
      tags,
      summary:
        "Update a member. A new role or address ends their sessions at once; a new address is invited again. The last owner " +
        "cannot be demoted (409) (organization key only)",
      middleware: organizationOnly,
      request: { params: IdParam, body: jsonApiBody(UpdateMemberInput) },
      responses: { 200: { description: "Updated", content: jsonApiContent(MemberDocument) }, ...writeErrors },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "member", id);
      return respond(c, single(serializeMember(await updateMember(serviceContext(c), id, data.attributes))));
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      operationId: "deleteMember",
      tags,
      summary: "Remove a member: their sessions end at once. The last owner cannot be removed (409) (organization key only)",
      middleware: organizationOnly,
      request: { params: IdParam },
      responses: {
        204: { description: "Removed" },
        ...errorResponses("read", {
          access: "organization",
          scope: "members",
          conflict: "the organization's last owner cannot be removed",
        }),
      },
    }),
    async (c) => {
      await deleteMember(serviceContext(c), c.req.valid("param").id);
      return noContent(c);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/invitation",
      operationId: "resendMemberInvitation",
      tags,
      summary: "Send a member who has not joined a new invitation e-mail; invited_at is now. 409 once they joined (organization key only)",
      middleware: organizationOnly,
      request: { params: IdParam },
      responses: { 200: { description: "The member, invited again", content: jsonApiContent(MemberDocument) }, ...writeErrors },
    }),
    async (c) => {
      const stored = (r: MemberRow) => storedResponse(c, single(serializeMember(r)), 200);
      return respond(c, single(serializeMember(await resendInvitation(serviceContext(c, stored), c.req.valid("param").id))));
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}/sessions",
      operationId: "revokeMemberSessions",
      tags,
      summary: "Sign a member out everywhere: every session of theirs ends now (organization key only)",
      middleware: organizationOnly,
      request: { params: IdParam },
      responses: { 204: { description: "Their sessions ended" }, ...errorResponses("read", { access: "organization", scope: "members" }) },
    }),
    async (c) => {
      await revokeMemberSessions(serviceContext(c), c.req.valid("param").id);
      return noContent(c);
    },
  );
