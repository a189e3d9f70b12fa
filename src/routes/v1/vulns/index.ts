import { createRoute, z } from "@hono/zod-openapi";
import { assertDocumentMatches, collection, JSONAPI_VERSION, pageOf, single } from "../../../http/jsonapi";
import { JSON_MEDIA_TYPE, respond } from "../../../http/media-type";
import { requireOrganizationKey } from "../../../http/auth";
import { collectionDocument, singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonContent } from "../../../http/openapi/responses";
import { createRouter } from "../../../http/router";
import { listVulns } from "../../../services/vuln-list";
import { createVuln } from "../../../services/vulns/create";
import { deleteVuln } from "../../../services/vulns/delete";
import { showVuln, vulnIdOf } from "../../../services/vulns/read";
import { updateVuln, updateVulns } from "../../../services/vulns/update";
import type { VulnUpdate } from "../../../services/vulns/types";
import { attachmentsRouter } from "./attachments";
import { commentsRouter } from "./comments";
import { regulatoryReportsRouter } from "./regulatory-reports";
import { similarRouter } from "./similar";
import { creation, noContent, serviceContext } from "../handler-helpers";
import {
  CreateVulnInput,
  ListVulnsQuery,
  rawSubmission,
  serializeVuln,
  UpdateVulnInput,
  UpdateVulnsInput,
  Vuln,
  VulnParam,
} from "./schema";
import { ApiError } from "../../../http/errors";
import { LIMITS } from "../../../lib/limits";

const tags = ["Vulns"];
const VulnDocument = singleDocument(Vuln);
const VulnsDocument = z.object({ jsonapi: z.object({ version: z.literal("1.1") }), data: z.array(Vuln).max(LIMITS.vulnsPerBulkUpdate) });
const readErrors = errorResponses("read", { notFound: "Vuln not found", mediaType: JSON_MEDIA_TYPE, scope: "read" });
const writeErrors = errorResponses("write", {
  notFound: "Vuln not found",
  mediaType: JSON_MEDIA_TYPE,
  access: "organization",
  scope: "vulns",
});
const deleteErrors = errorResponses("read", {
  notFound: "Vuln not found",
  mediaType: JSON_MEDIA_TYPE,
  access: "organization",
  scope: "vulns",
});
// Operators read every organization's vulns but change none: a report is its organization's alone.
const organizationOnly = [requireOrganizationKey("vulns")];

// The vuln endpoints answer plain JSON (in the shape of JSON:API), their errors too.

/** A PATCH document's data as the service takes it: its attributes, the brief and the original named. */
export const changeOf = (d: {
  attributes?: Omit<VulnUpdate, "briefId" | "duplicateOf" | "assigneeId" | "closer">;
  relationships?: {
    brief?: { data: { id: string } };
    duplicate_of?: { data: { id: string } | null };
    assignee?: { data: { id: string } | null };
  };
}): VulnUpdate => ({
  ...d.attributes,
  briefId: d.relationships?.brief?.data.id,
  duplicateOf: d.relationships?.duplicate_of === undefined ? undefined : (d.relationships.duplicate_of.data?.id ?? null),
  assigneeId: d.relationships?.assignee === undefined ? undefined : (d.relationships.assignee.data?.id.toLowerCase() ?? null),
});

export const vulnsRouter = createRouter({ mediaType: JSON_MEDIA_TYPE })
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listVulns",
      tags,
      summary: "List the vulns the key can access (application/json)",
      request: { query: ListVulnsQuery },
      responses: { 200: { description: "Vulns", content: jsonContent(collectionDocument(Vuln)) }, ...readErrors },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listVulns(serviceContext(c), {
        page,
        sort: query.sort,
        processingState: query["q[processing_state_eq]"],
        triageStates: query["q[triage_state_eq]"] ? [query["q[triage_state_eq]"]] : query["q[triage_state_in]"],
        duplicateOf: query["q[duplicate_of_eq]"],
        inboxState: query["q[inbox_state_eq]"],
        severity: query["q[severity_eq]"] === "null" ? null : query["q[severity_eq]"],
        search: query["q[search]"],
        shortcode: query["q[shortcode_eq]"],
        read: query["q[read_eq]"],
        overdue: query["q[overdue_eq]"],
        lastActivityBy: query["q[last_activity_by_eq]"],
        lastActivityFrom: query["q[last_activity_at_gteq]"],
        lastActivityTo: query["q[last_activity_at_lteq]"],
        briefId: query["q[brief_id_eq]"],
        assigneeId: query["q[assignee_id_eq]"],
        createdFrom: query["q[created_at_gteq]"],
        createdTo: query["q[created_at_lteq]"],
        gate: query["q[gate_eq]"],
        possibleDuplicate: query["q[possible_duplicate_eq]"],
        reporterKey: query["q[reporter_key_eq]"],
      });
      return respond(c, collection(c, rows.map(serializeVuln), page, total));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showVuln",
      tags,
      summary: "Show a vuln. The organization's first read sets read_at and fires Vuln::Read",
      request: { params: VulnParam },
      responses: { 200: { description: "The vuln", content: jsonContent(VulnDocument) }, ...readErrors },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      const id = await vulnIdOf(ctx, c.req.valid("param").id);
      return respond(c, single(serializeVuln(await showVuln(ctx, id, { markRead: c.req.method === "GET" }))));
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createVuln",
      tags,
      summary: "Create a vuln through one of the organization's published briefs; fires Vuln::Created (organization key only)",
      middleware: organizationOnly,
      request: { body: { required: true, content: jsonContent(CreateVulnInput) } },
      responses: { 201: { description: "Created, inbox_state dispatching", content: jsonContent(VulnDocument) }, ...writeErrors },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "vuln");
      const answer = creation(c, serializeVuln);
      const record = await createVuln({
        ctx: serviceContext(c, answer.respond),
        input: data.attributes,
        brief: { id: data.relationships.brief.data.id },
        raw: await rawSubmission(c),
      });
      return answer.created(record);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      operationId: "updateVuln",
      tags,
      summary:
        "Update a vuln: every member optional (left out: unchanged; null clears contact_email, severity, cvss_vector); triage_state " +
        "moves it (a duplicate names relationships.duplicate_of), processing_state alone closes as resolved or reopens; fires " +
        "Vuln::Updated on a change, and Vuln::Triage::Changed on a move (organization key only)",
      middleware: organizationOnly,
      request: { params: VulnParam, body: { required: true, content: jsonContent(UpdateVulnInput) } },
      responses: { 200: { description: "Updated", content: jsonContent(VulnDocument) }, ...writeErrors },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      const id = await vulnIdOf(ctx, c.req.valid("param").id);
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "vuln", id);
      const record = await updateVuln(ctx, id, changeOf(data));
      return respond(c, single(serializeVuln(record)));
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/",
      operationId: "updateVulns",
      tags,
      summary:
        `Update up to ${LIMITS.vulnsPerBulkUpdate} vulns at once, all or nothing, each as its own PATCH would (its events included) ` +
        `(organization key only)`,
      description:
        "`data` is a list of vuln documents as PATCH /v1/vulns/{id} takes them, each with its `id`. One batch changes every vuln or " +
        "none: a bad member (422 at its pointer), a vuln that is not the caller's (404 at its id), a brief of another organization, " +
        "or a concurrent edit of any of them (409) changes nothing. The answer lists the vulns as they are now, in the request's order.",
      middleware: organizationOnly,
      request: { body: { required: true, content: jsonContent(UpdateVulnsInput) } },
      responses: { 200: { description: "Updated, in the request's order", content: jsonContent(VulnsDocument) }, ...writeErrors },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      data.forEach((d, i) => {
        if (d.type !== "vuln")
          throw new ApiError("conflict", {
            detail: `data[${i}].type must be "vuln", got "${d.type}".`,
            source: { pointer: `/data/${i}/type` },
          });
      });
      const changes = data.map((d) => ({ id: d.id, input: changeOf(d) }));
      const records = await updateVulns(serviceContext(c), changes);
      return respond(c, { jsonapi: JSONAPI_VERSION, data: records.map(serializeVuln) });
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      operationId: "deleteVuln",
      tags,
      summary: "Delete a vuln and its attachments; fires Vuln::Destroyed (organization key only)",
      middleware: organizationOnly,
      request: { params: VulnParam },
      responses: { 204: { description: "Deleted" }, ...deleteErrors },
    }),
    async (c) => {
      const ctx = serviceContext(c);
      await deleteVuln(ctx, await vulnIdOf(ctx, c.req.valid("param").id), c.env.ATTACHMENTS);
      return noContent(c);
    },
  );

vulnsRouter.route("/", attachmentsRouter);
vulnsRouter.route("/", commentsRouter);
vulnsRouter.route("/", regulatoryReportsRouter);
vulnsRouter.route("/", similarRouter);
