import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { csafProblems, cveProblems, osvProblems } from "./advisory-validators";
import { ENDPOINTS, EVENT_TYPE_ID, type Fixture } from "../helpers/endpoint-table";
import { jsonApiValidator } from "./jsonapi-schema";
import { waitFor } from "../helpers/wait";

// Every operation of the served OpenAPI document, called for real against npm run dev, and each success
// answer judged by Ajv against the schema its operation documents (and, for JSON:API answers, by the
// JSON:API 1.1 schema). A client generated from the document trusts exactly these schemas: an answer
// that departs from one, or an operation no test calls, fails here.

const root = path.resolve(import.meta.dirname, "../..");
const { base, persistTo, logFile } = inject("dev");

interface Operation {
  method: string;
  template: string;
  /** The path as a pattern: each {param} one segment. */
  pattern: RegExp;
  /** Literal segments, so /items/reorder wins over /items/{id}. */
  literals: number;
}

interface Answer {
  /** "METHOD /template", as the document names the operation. */
  operation: string;
  method: string;
  template: string;
  status: number;
  mediaType: string;
  body: unknown;
}

let doc: { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };
let ajv: Ajv;
let operations: Operation[];
const answers: Answer[] = [];
/** The fixture's published advisory as served: its JSON:API read and each rendering. */
const served: Record<string, any> = {};
const jsonApi = jsonApiValidator();

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
const compiled = new Map<string, ValidateFunction>();
function schemaFor(template: string, method: string, status: number, mediaType: string): ValidateFunction | undefined {
  const content = doc.paths[template]?.[method.toLowerCase()]?.responses[String(status)]?.content;
  if (!content?.[mediaType]) return undefined;
  const ref = `doc#/${pointer("paths", template, method.toLowerCase(), "responses", String(status), "content", mediaType, "schema")}`;
  if (!compiled.has(ref)) compiled.set(ref, ajv.compile({ $ref: ref }));
  return compiled.get(ref);
}

function operationOf(method: string, url: string): Operation {
  const pathname = new URL(url, base).pathname;
  const matches = operations.filter((o) => o.method === method && o.pattern.test(pathname)).sort((a, b) => b.literals - a.literals);
  if (!matches[0]) throw new Error(`${method} ${pathname} is no operation of the document`);
  return matches[0];
}

interface Call {
  key?: string;
  body?: unknown;
  /** Bytes sent as they are, with this Content-Type. */
  raw?: { text: string; type: string };
  accept?: string;
}

/** One request as a client sends it; a success is recorded against its operation, anything else throws. */
async function call(method: string, url: string, opts: Call = {}) {
  // An address of this file's own: the shared server's per-address limits are not spent by other files.
  const headers: Record<string, string> = { "CF-Connecting-IP": "203.0.113.7" };
  if (opts.key) headers.Authorization = `Bearer ${opts.key}`;
  if (opts.accept) headers.Accept = opts.accept;
  let body: string | undefined;
  if (opts.raw) {
    body = opts.raw.text;
    headers["Content-Type"] = opts.raw.type;
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["Content-Type"] = "application/vnd.api+json";
  }
  const res = await fetch(`${base}${url}`, { method, headers, body });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
  const op = operationOf(method, url);
  const mediaType = (res.headers.get("Content-Type") ?? "").split(";")[0]!.trim();
  const parsed = /json/.test(mediaType) ? JSON.parse(text) : text;
  answers.push({
    operation: `${op.method} ${op.template}`,
    method: op.method,
    template: op.template,
    status: res.status,
    mediaType,
    body: parsed,
  });
  return parsed as any;
}

async function operatorKey(): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ["scripts/operator-key.ts", "--local", "--persist-to", persistTo], {
    cwd: root,
  });
  return stdout.trim().split("\n").at(-1)!;
}

/**
 * Where the fixture's webhooks send: a receiver on loopback (npm run dev allows it) that takes every
 * delivery. A host on the internet would have the dev server look up its name for each delivery (and
 * print the failed lookup's stack trace on an offline machine).
 */
let delivered = 0;
const receiver = http.createServer((req, res) =>
  req.resume().on("end", () => {
    delivered++;
    res.writeHead(204).end();
  }),
);
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve()).closeAllConnections()));

/** The workerd tests' fixture, made here through HTTP: one organization with one of everything. */
async function fixture(operator: string): Promise<Fixture & { shortcode: string; policyShortcode: string; token: string }> {
  const tag = crypto.randomUUID().slice(0, 8);
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/vdp`;
  const org = await call("POST", "/v1/organizations", {
    key: operator,
    body: { data: { type: "organization", attributes: { name: `Answers ${tag}`, slug: `answers-${tag}` } } },
  });
  const orgId = org.data.id as string;
  const made = await call("POST", `/v1/organizations/${orgId}/api_keys`, {
    key: operator,
    body: { data: { type: "api_key", attributes: {} } },
  });
  const key = made.data.attributes.key as string;
  const create = async (url: string, type: string, attributes: Record<string, unknown>, relationships?: unknown) =>
    (await call("POST", url, { key, body: { data: { type, attributes, ...(relationships ? { relationships } : {}) } } })).data;
  const published = "2020-01-01T00:00:00.000Z";
  const policy = await create("/v1/policies", "policy", {
    name: `Policy ${tag}`,
    published_at: published,
    custom_domain: `security-${tag}.answers.example.com`,
  });
  const asset = await create("/v1/assets", "asset", { kind: "domain", value: `${tag}.example.com` });
  const brief = await create(
    "/v1/briefs",
    "brief",
    { name: `Brief ${tag}`, published_at: published },
    {
      policy: { data: { type: "policy", id: policy.id } },
    },
  );
  const spare = await create("/v1/briefs", "brief", { name: `Spare ${tag}`, published_at: published });
  const apiKey = await call("POST", `/v1/organizations/${orgId}/api_keys`, {
    key: operator,
    body: { data: { type: "api_key", attributes: {} } },
  });
  // Through the brief, so the report has a reporter who can read a reply.
  const receipt = await call("POST", `/v1/p/briefs/${brief.attributes.shortcode}/vulns`, {
    body: { data: { type: "vuln", attributes: { title: "Through the brief", description: "Steps", contact_email: "r@example.com" } } },
  });
  const vuln = receipt.data;
  const file = await call("POST", `/v1/vulns/${vuln.id}/attachments?filename=poc.json`, {
    key,
    raw: { text: '{"poc":true}', type: "application/json" },
  });
  const note = await create(`/v1/vulns/${vuln.id}/comments`, "comment", { body: "Triage note" });
  const filing = await create(`/v1/vulns/${vuln.id}/regulatory_reports`, "regulatory_report", {
    kind: "early_warning",
    submitted_at: "2026-01-01T00:00:00Z",
    body: "Early warning",
  });
  const hook = await create(
    "/v1/webhooks",
    "webhook",
    { name: `Hook ${tag}`, url: webhookUrl },
    {
      trigger_event_types: { data: [{ type: "trigger_event_type", id: EVENT_TYPE_ID }] },
    },
  );
  const delivery = await call("POST", `/v1/webhooks/${hook.id}/ping`, { key });
  const contact = await create("/v1/contacts", "contact", { name: "Ana", email: `ana-${tag}@acme.example`, role: "responder" });
  const log = await call("GET", "/v1/notifications", { key });
  const advisory = (state: string) =>
    create(
      "/v1/advisories",
      "advisory",
      {
        title: `Advisory ${tag}`,
        summary: "Redirects anywhere.",
        state,
        affected: [{ vendor: "Acme", product: "Widget", purl: "pkg:npm/widget", versions: [{ version: "1.0.0", status: "affected" }] }],
      },
      { vulns: { data: [{ type: "vuln", id: vuln.id }] } },
    );
  const publishedAdvisory = await advisory("published");
  const draftAdvisory = await advisory("draft");
  const directory = async (name: string) =>
    (
      await call("POST", "/v1/directories", {
        key: operator,
        body: { data: { type: "directory", attributes: { name, slug: `${name}-${tag}` } } },
      })
    ).data;
  const dir = await directory("answers");
  const spareDir = await directory("spare");
  const listing = await call("POST", "/v1/directory_listings", {
    key: operator,
    body: {
      data: {
        type: "directory_listing",
        relationships: {
          directory: { data: { type: "directory", id: dir.id } },
          organization: { data: { type: "organization", id: orgId } },
        },
      },
    },
  });
  const item = await create(`/v1/directory_listings/${listing.data.id}/items`, "directory_listing_item", {
    listable_type: "Brief",
    listable_id: brief.id,
  });
  return {
    org: { id: orgId, key, operatorKey: operator },
    policyId: policy.id,
    assetId: asset.id,
    briefId: brief.id,
    spareBriefId: spare.id,
    apiKeyId: apiKey.data.id,
    vulnId: vuln.id,
    attachmentId: file.data.id,
    commentId: note.id,
    regulatoryReportId: filing.id,
    webhookId: hook.id,
    deliveryId: delivery.data.id,
    webhookUrl,
    contactId: contact.id,
    notificationId: log.data[0].id,
    advisoryId: publishedAdvisory.id,
    draftAdvisoryId: draftAdvisory.id,
    directoryId: dir.id,
    spareDirectoryId: spareDir.id,
    listingId: listing.data.id,
    itemId: item.id,
    shortcode: brief.attributes.shortcode,
    policyShortcode: policy.attributes.shortcode,
    token: receipt.data.attributes.follow_up_token,
  };
}

beforeAll(async () => {
  doc = await (await fetch(`${base}/v1/openapi.json`)).json();
  ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(doc, "doc");
  operations = Object.entries(doc.paths).flatMap(([template, ops]) =>
    Object.keys(ops)
      .filter((m) => ["get", "post", "patch", "put", "delete"].includes(m))
      .map((m) => ({
        method: m.toUpperCase(),
        template,
        pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
        literals: template.split("/").filter((s) => s && !s.startsWith("{")).length,
      })),
  );

  const operator = await operatorKey();
  const f = await fixture(operator);
  // The public side: the service's entry points, the brief, a directory, and a reporter's whole way back.
  await call("GET", "/", { accept: "application/vnd.api+json" });
  await call("GET", "/", { accept: "text/html" });
  await call("GET", "/v1");
  await call("GET", `/v1/p/briefs/${f.shortcode}`);
  await call("GET", "/v1/p/directories/demo-directory");
  await call("GET", `/v1/p/policies/${f.policyShortcode}/versions/1`);
  await call("GET", "/v1/p/policies/DEMX-0002/hall_of_fame");
  const token = f.token;
  await call("GET", "/v1/p/report", { key: token });
  await call("PATCH", "/v1/p/report", {
    key: token,
    body: { data: { type: "report", attributes: { credit_name: "R", credit_consent: true } } },
  });
  for (const format of ["", "/csaf", "/osv", "/cve"]) served[format] = await call("GET", `/v1/p/advisories/${f.advisoryId}${format}`);
  const said = await call("POST", "/v1/p/report/comments", {
    key: token,
    body: { data: { type: "comment", attributes: { body: "More" } } },
  });
  await call("GET", "/v1/p/report/comments", { key: token });
  await call("GET", `/v1/p/report/comments/${said.data.id}`, { key: token });
  const sent = await call("POST", "/v1/p/report/attachments?filename=r.txt", { key: token, raw: { text: "proof", type: "text/plain" } });
  await call("GET", "/v1/p/report/attachments", { key: token });
  await call("GET", `/v1/p/report/attachments/${sent.data.id}`, { key: token });
  await call("GET", `/v1/p/report/attachments/${sent.data.id}/content`, { key: token });
  // The receipt, once the intake has stored the report, and the keys it verifies with.
  await waitFor(
    "the fixture's report to be stored",
    async () => (await call("GET", "/v1/p/report", { key: token })).data.attributes.inbox_state,
    (state) => state === "stored",
    { interval: 500 },
  );
  await call("GET", "/v1/p/report/receipt", { key: token });
  await call("GET", "/v1/p/report/timeline", { key: token });
  await call("GET", "/.well-known/vdp-keys.json");

  // The authenticated side: every endpoint of the shared table, as its owner (or an operator where only
  // an operator may): reads, changes, creates (each body is written for the fixture as it was made, so a
  // create comes after the changes it would upset), then the deletes from the innermost record outwards.
  const send = (e: (typeof ENDPOINTS)[number]) => {
    const body = e.body?.(f);
    return call(e.method, e.path(f), {
      key: e.operatorOnly ? operator : f.org.key,
      ...(typeof body === "string" ? { raw: { text: body, type: "text/plain" } } : { body }),
    });
  };
  for (const method of ["GET", "PATCH", "POST"]) for (const e of ENDPOINTS.filter((e) => e.method === method)) await send(e);
  for (const e of ENDPOINTS.filter((e) => e.method === "DELETE").reverse()) await send(e);
});

describe("the fixture's webhooks", () => {
  it("take their deliveries on loopback, so the dev server looks up no host name for them", async () => {
    const lookups = () => readFileSync(logFile, "utf8").match(/failed to lookup address.*/g) ?? [];
    const seen = await waitFor(
      "a delivery to the loopback receiver, or a failed lookup in the dev server's log",
      () => ({ delivered, lookups: lookups() }),
      (s) => s.delivered > 0 || s.lookups.length > 0,
      { interval: 250 },
    );
    expect(seen.lookups).toEqual([]);
  });
});

describe("a published advisory as the server renders it", () => {
  it("is valid CSAF (BSI validator, mandatory tests), OSV and CVE JSON (their schemas), saying the same", async () => {
    expect(await csafProblems(served["/csaf"])).toEqual([]);
    expect(osvProblems(served["/osv"])).toEqual([]);
    expect(cveProblems(served["/cve"])).toEqual([]);
    const id = served[""].data.id;
    expect(served["/csaf"].document.tracking.id).toBe(`vdp-${id}`);
    expect(served["/osv"].id).toBe(`x_VDP-${id}`);
    expect(served["/cve"].affected[0]).toMatchObject({ vendor: "Acme", product: "Widget" });
  });
});

describe("every operation's success answer, judged by Ajv against the schema the document gives it", () => {
  it("calls every operation of the document, and each answer is one the operation documents", () => {
    const called = new Set(answers.map((a) => a.operation));
    expect(operations.map((o) => `${o.method} ${o.template}`).filter((o) => !called.has(o))).toEqual([]);
    const undocumented = answers.filter((a) => {
      const response = doc.paths[a.template]![a.method.toLowerCase()]!.responses[String(a.status)];
      // A file's bytes come back in the type they were stored with when that is inert: */* says so.
      return !response || (a.mediaType ? !response.content?.[a.mediaType] && !response.content?.["*/*"] : response.content !== undefined);
    });
    expect(undocumented.map((a) => `${a.operation} ${a.status} ${a.mediaType}`)).toEqual([]);
  });

  it("finds every JSON answer valid against its documented schema, and every JSON:API one against JSON:API 1.1", () => {
    // JSON the API writes, not a file's bytes that happen to be JSON (those are documented as */*).
    const json = answers.filter((a) => /json/.test(a.mediaType) && schemaFor(a.template, a.method, a.status, a.mediaType));
    expect(json.length).toBeGreaterThan(70);
    const departures = json.flatMap((a) => {
      const validate = schemaFor(a.template, a.method, a.status, a.mediaType)!;
      const documented = validate(a.body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
      const spec = a.mediaType === "application/vnd.api+json" ? jsonApi(a.body) : [];
      return [...documented, ...spec].map((d) => `${a.operation} ${a.status}: ${d}`);
    });
    expect(departures).toEqual([]);
  });

  it("can fail: a real answer with a member of the wrong type, or without a required one, is refused", () => {
    const vuln = answers.find((a) => a.operation === "GET /v1/vulns/{id}")!;
    const validate = schemaFor("/v1/vulns/{id}", "GET", 200, vuln.mediaType)!;
    const body = vuln.body as { data: { attributes: Record<string, unknown> } };
    expect(validate(body)).toBe(true);
    expect(validate({ ...body, data: { ...body.data, attributes: { ...body.data.attributes, title: 5 } } })).toBe(false);
    const { processing_state: _, ...withoutState } = body.data.attributes;
    expect(validate({ ...body, data: { ...body.data, attributes: withoutState } })).toBe(false);
    // An undocumented status is caught by the first test: the document has no 200 for a create.
    expect(schemaFor("/v1/vulns", "POST", 200, "application/json")).toBeUndefined();
  });
});
