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
import { ENDPOINTS, type Endpoint } from "../helpers/endpoint-table";
import { buildFixture, type Client, type Fixture } from "../helpers/fixture";
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
  /** Refusals the operation may answer here, recorded as its answer like a success. */
  expect?: number[];
}

/** One request as a client sends it; a success (or the refusal it expects) is recorded against its operation, anything else throws. */
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
  if (res.status >= 300 && !opts.expect?.includes(res.status)) throw new Error(`${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
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

/**
 * The workerd tests' fixture, made here through HTTP by the same builder: one organization with one of
 * everything, its vuln sent through the brief so a reporter holds a token, and what the reporter's
 * endpoints name (a comment and a file of the reporter's own).
 */
async function fixture(operator: string): Promise<Fixture> {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/vdp`;
  const client: Client = (method, url, init = {}) => call(method, url, init);
  const f = await buildFixture(client, { operatorKey: operator, webhookUrl, submitted: true });
  const token = f.token!;
  const said = await call("POST", "/v1/p/report/comments", {
    key: token,
    body: { data: { type: "comment", attributes: { body: "More" } } },
  });
  const sent = await call("POST", "/v1/p/report/attachments?filename=r.txt", { key: token, raw: { text: "proof", type: "text/plain" } });
  // The dev server's demo data holds a directory and a policy with a hall of fame.
  return {
    ...f,
    reportCommentId: said.data.id,
    reportAttachmentId: sent.data.id,
    directorySlug: "demo-directory",
    hallOfFameShortcode: "DEMX-0002",
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
  // The receipt waits for the intake to store the report.
  await waitFor(
    "the fixture's report to be stored",
    async () => (await call("GET", "/v1/p/report", { key: f.token })).data.attributes.inbox_state,
    (state) => state === "stored",
    { interval: 500 },
  );
  // The service's root, as a browser gets it (the table asks for the API's answer).
  await call("GET", "/", { accept: "text/html" });

  // Every operation of the shared table, each with its caller: no key, the reporter's token, the
  // organization's own key (or an operator's where only an operator may): reads, changes, creates (each
  // body is written for the fixture as it was made, so a create comes after the changes it would upset),
  // then the deletes from the innermost record outwards.
  const keyOf = (e: Endpoint) =>
    e.caller === "public" ? undefined : e.caller === "reporter" ? f.token : e.operatorOnly ? operator : f.org.key;
  const send = async (e: Endpoint) => {
    const body = e.body?.(f);
    const answer = await call(e.method, e.path(f), {
      key: keyOf(e),
      accept: e.accept,
      ...(typeof body === "string" ? { raw: { text: body, type: "text/plain" } } : { body }),
    });
    const rendering = e.path(f).match(new RegExp(`^/v1/p/advisories/${f.advisoryId}(/\\w+)?$`));
    if (rendering) served[rendering[1] ?? ""] = answer;
  };
  for (const method of ["GET", "PATCH", "POST"])
    for (const e of ENDPOINTS.filter((e) => e.method === method && !e.shardedOnly)) await send(e);
  for (const e of ENDPOINTS.filter((e) => e.method === "DELETE" && !e.shardedOnly).reverse()) await send(e);
  // Last, the organization's move (its writes answer 503 while it moves): asked for to each tenant database,
  // so one starts it (the other is where it is, or where it moves already), then shown and cancelled. One
  // database answers each with a 409.
  const move = `/v1/organizations/${f.org.id}/move`;
  for (const to of ["TENANT_1", "TENANT_2"])
    await call("POST", move, { key: operator, body: { data: { type: "organization_move", attributes: { to } } }, expect: [409, 422] });
  await call("GET", move, { key: operator, expect: [409] });
  await call("DELETE", move, { key: operator, expect: [409] });
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
