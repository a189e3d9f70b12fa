import { createRoute } from "@hono/zod-openapi";
import { assertDocumentMatches, collection, pageOf, single } from "../../../http/jsonapi";
import { respond } from "../../../http/media-type";
import { collectionDocument, singleDocument } from "../../../http/openapi/documents";
import { errorResponses, jsonApiBody, jsonApiContent } from "../../../http/openapi/responses";
import { IdParam } from "../../../http/openapi/queries";
import { createRouter } from "../../../http/router";
import { nowIso } from "../../../lib/ids";
import { createPolicy, deletePolicy, getPolicy, listPolicies, type PolicyRecord, updatePolicy } from "../../../services/policies";
import { creation, noContent, serviceContext } from "../handler-helpers";
import {
  CreatePolicyInput,
  ListPoliciesQuery,
  ListPolicyVersionsQuery,
  Policy,
  PolicyVersion,
  serializePolicy,
  serializePolicyVersion,
  UpdatePolicyInput,
  VersionNumberParam,
} from "./schema";
import { getPolicyVersion, listPolicyVersions } from "../../../services/policy-versions";
import { verifyCustomDomain } from "../../../services/custom-domains";
import { dnsOverHttps } from "../../../lib/dns";

const tags = ["Policies"];
const PolicyDocument = singleDocument(Policy);

export const policiesRouter = createRouter()
  .openapi(
    createRoute({
      method: "get",
      path: "/",
      operationId: "listPolicies",
      tags,
      summary: "List policies",
      request: { query: ListPoliciesQuery },
      responses: {
        200: { description: "Policies", content: jsonApiContent(collectionDocument(Policy)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const page = pageOf(query);
      const { rows, total } = await listPolicies(serviceContext(c), { page, sort: query.sort });
      const now = nowIso();
      return respond(
        c,
        collection(
          c,
          rows.map((r) => serializePolicy(r, now)),
          page,
          total,
        ),
      );
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}",
      operationId: "showPolicy",
      tags,
      summary: "Show a policy",
      request: { params: IdParam },
      responses: {
        200: { description: "The policy", content: jsonApiContent(PolicyDocument) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => respond(c, single(serializePolicy(await getPolicy(serviceContext(c), c.req.valid("param").id), nowIso()))),
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/",
      operationId: "createPolicy",
      tags,
      summary: "Create a policy",
      request: { body: jsonApiBody(CreatePolicyInput) },
      responses: {
        201: { description: "Created", content: jsonApiContent(PolicyDocument) },
        ...errorResponses("write", { access: "unclaimed", scope: "settings" }),
      },
    }),
    async (c) => {
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "policy");
      const answer = creation(c, (r: PolicyRecord) => serializePolicy(r, nowIso()));
      const record = await createPolicy(serviceContext(c, answer.respond), data.attributes, {
        organizationId: data.relationships?.organization?.data.id,
        assetIds: data.relationships?.assets?.data.map((a) => a.id),
      });
      return answer.created(record);
    },
  )
  .openapi(
    createRoute({
      method: "patch",
      path: "/{id}",
      operationId: "updatePolicy",
      tags,
      summary: "Update a policy; attributes not sent are kept, scope arrays are replaced whole",
      request: { params: IdParam, body: jsonApiBody(UpdatePolicyInput) },
      responses: {
        200: { description: "Updated", content: jsonApiContent(PolicyDocument) },
        ...errorResponses("write", { access: "unclaimed", scope: "settings" }),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { data } = c.req.valid("json");
      assertDocumentMatches(data, "policy", id);
      const record = await updatePolicy(serviceContext(c), id, {
        input: data.attributes,
        links: { assetIds: data.relationships?.assets?.data.map((a) => a.id) },
      });
      return respond(c, single(serializePolicy(record, nowIso())));
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      path: "/{id}",
      operationId: "deletePolicy",
      tags,
      summary: "Delete a policy; its briefs stay, detached from it",
      request: { params: IdParam },
      responses: { 204: { description: "Deleted" }, ...errorResponses("read", { access: "unclaimed", scope: "settings" }) },
    }),
    async (c) => {
      await deletePolicy(serviceContext(c), c.req.valid("param").id);
      return noContent(c);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/verify_custom_domain",
      operationId: "verifyPolicyCustomDomain",
      tags,
      summary: "Look up the TXT record that proves control of the policy's custom domain, now",
      description:
        "Looks up `custom_domain_verification.record_name` over DNS-over-HTTPS and answers the policy as the lookup left it: " +
        "`verified` when a TXT value there is `record_value` (the domain serves security.txt from now on), else still `pending` with " +
        "`failure_reason` (no record yet, another value, or a resolver that did not answer: try again later; the cron also looks " +
        "every 5 minutes). A verified domain is answered as it is, without a lookup. 422 for a policy without a custom domain; 409 " +
        "when the domain changed during the lookup.",
      request: { params: IdParam },
      responses: {
        200: {
          description: "The policy, with the lookup's outcome in custom_domain_verification",
          content: jsonApiContent(PolicyDocument),
        },
        ...errorResponses("write", { access: "unclaimed", scope: "settings" }),
      },
    }),
    async (c) => {
      const record = await verifyCustomDomain(serviceContext(c), c.req.valid("param").id, dnsOverHttps(c.env.DNS_OVER_HTTPS_URL));
      return respond(c, single(serializePolicy(record, nowIso())));
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/versions",
      operationId: "listPolicyVersions",
      tags,
      summary: "List the versions of a policy's public terms: one for the terms as created, one more for each change of them",
      request: { params: IdParam, query: ListPolicyVersionsQuery },
      responses: {
        200: { description: "Versions", content: jsonApiContent(collectionDocument(PolicyVersion)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const query = c.req.valid("query");
      const page = pageOf(query);
      const ctx = serviceContext(c);
      const { rows, total } = await listPolicyVersions(ctx, id, { page, sort: query.sort });
      // A policy the caller cannot see answers 404, not an empty list. Every policy has a version
      // (those made before versions existed get theirs at their next change), so only then is it read.
      if (total === 0) await getPolicy(ctx, id);
      return respond(
        c,
        collection(
          c,
          rows.map((r) => serializePolicyVersion(r, `/v1/policies/${id}/versions/${r.number}`)),
          page,
          total,
        ),
      );
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/{id}/versions/{number}",
      operationId: "showPolicyVersion",
      tags,
      summary: "Show one version of a policy's public terms, with the SHA-256 of their RFC 8785 canonical JSON",
      request: { params: VersionNumberParam },
      responses: {
        200: { description: "The version", content: jsonApiContent(singleDocument(PolicyVersion)) },
        ...errorResponses("read", { scope: "read" }),
      },
    }),
    async (c) => {
      const { id, number } = c.req.valid("param");
      const row = await getPolicyVersion(serviceContext(c), id, Number(number));
      return respond(c, single(serializePolicyVersion(row, `/v1/policies/${id}/versions/${row.number}`)));
    },
  );
