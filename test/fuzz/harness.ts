import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import { BASE } from "../helpers/api";
import { KEY, type FuzzCase } from "./cases";
import type { Operation } from "./operations";
import type { Pool } from "./pool";
import { mismatch, type Components, type Schema } from "./schema";
import { WriteCounter } from "./writes";

export type KeyKind = "org" | "operator" | "literal";

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** Whether the request prepared any statement but a SELECT. */
  mayHaveWritten: boolean;
}

const discard = { send: async () => {}, sendBatch: async () => {} } as unknown as Queue;
const unlimited = { limit: async () => ({ success: true }) };

/**
 * The Worker's bindings with every rate limiter always saying yes (thousands of requests a minute
 * with two keys would otherwise be mostly 429s, which tells nothing) and the queue discarding
 * messages, so no consumer runs behind the fuzzer's back.
 */
const watched = WriteCounter.watch(env.DB);

function fuzzEnv(): Env {
  const out: Record<string, unknown> = { ...env, EVENTS: discard, DB: watched.db };
  for (const [name, value] of Object.entries(env)) {
    if (value && typeof (value as { limit?: unknown }).limit === "function") out[name] = unlimited;
  }
  return out as unknown as Env;
}
const ENV = fuzzEnv();

export function substitute(text: string, pool: Pool): string {
  return pool.substitute(text).replaceAll(KEY.org, pool.orgKey).replaceAll(KEY.operator, pool.operatorKey);
}

export function pathOf(c: FuzzCase, pool?: Pool): string {
  let i = 0;
  return c.op.template.replace(/\{[^}]+\}/g, () => {
    const raw = c.pathValues[i++]!;
    return pool ? encodeURIComponent(substitute(raw, pool)) : raw;
  });
}

function bodyOf(c: FuzzCase, pool: Pool): Uint8Array | undefined {
  if (!c.body) return undefined;
  const { text, badBytes } = c.body;
  const enc = new TextEncoder();
  if (!badBytes) return enc.encode(substitute(text, pool));
  const head = enc.encode(substitute(text.slice(0, badBytes.at), pool));
  const tail = enc.encode(substitute(text.slice(badBytes.at), pool));
  const out = new Uint8Array(head.length + badBytes.bytes.length + tail.length);
  out.set(head);
  out.set(badBytes.bytes, head.length);
  out.set(tail, head.length + badBytes.bytes.length);
  return out;
}

/** One request through the Worker's own fetch handler, as a client sends it. */
export async function send(c: FuzzCase, key: KeyKind, pool: Pool): Promise<Answer> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(c.headers)) headers.set(name, substitute(value, pool));
  if (key === "org") headers.set("Authorization", `Bearer ${pool.orgKey}`);
  if (key === "operator") headers.set("Authorization", `Bearer ${pool.operatorKey}`);
  if (key === "literal" && c.authorization !== null && c.authorization !== undefined)
    headers.set("Authorization", substitute(c.authorization, pool));
  const body = bodyOf(c, pool);
  const contentType = c.contentType === undefined ? (c.op.body?.mediaTypes[0] ?? "application/vnd.api+json") : c.contentType;
  if (body && contentType !== null) headers.set("Content-Type", contentType);
  const url = `${BASE}${pathOf(c, pool)}${c.query ? `?${substitute(c.query, pool)}` : ""}`;
  const ctx = createExecutionContext();
  watched.reset();
  const res = await worker.fetch(new Request(url, { method: c.method, headers, body }), ENV, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, text, mayHaveWritten: watched.mayHaveWritten() };
}

const GENERIC = new Set([400, 401, 403, 404, 405, 413, 415, 422, 429]);
const essence = (h: string | null) => (h ?? "").split(";")[0]!.trim().toLowerCase();

export interface Problem {
  label: string;
  detail?: string;
}

export interface Judging {
  ops: Map<string, Operation>;
  errorCodes: Set<string>;
  components: Components;
}

/** Everything wrong with one answer, judged by the document and the error conventions. */
export function judge(c: FuzzCase, res: Answer, { ops, errorCodes, components }: Judging, mustFail: string[]): Problem[] {
  const problems: Problem[] = [];
  const add = (label: string, detail?: string) => problems.push({ label, detail });
  const op = ops.get(`${c.method === "HEAD" ? "GET" : c.method} ${c.op.template}`);
  const status = res.status;
  // OPTIONS is answered for CORS preflights, which the document does not describe.
  const preflight = c.method === "OPTIONS" && (status === 200 || status === 204);
  // A 5xx is grouped by what is wrong with the request itself, if anything, else by what the key may not do.
  const cause = c.mustFail.length ? c.mustFail : mustFail;
  if (status >= 500) add(`${status} (${cause.join("; ") || "nothing wrong with the request by the document"})`, res.text.slice(0, 300));
  else if (!(op?.responses.has(status) ?? false) && !GENERIC.has(status) && !preflight) add(`undocumented status ${status}`);
  // A preflight answers before anything is validated: it says which methods and headers may come.
  if (status < 400 && !preflight) for (const why of mustFail) add(`succeeded but must fail: ${why}`);
  const sentId = c.headers["X-Request-Id"];
  const requestId = res.headers.get("X-Request-Id");
  if (!requestId) add("no X-Request-Id");
  else if (sentId && requestId === sentId) add("the client's X-Request-Id became the request id");
  // Every 2xx and 4xx says the caller's limit, as the document promises; what needs no key, or a
  // reporter's token, may be read from any web page.
  const limited = (status >= 200 && status < 300) || (status >= 400 && status < 500);
  if (limited && !preflight && !/^[1-9]\d*$/.test(res.headers.get("X-RateLimit-Limit") ?? ""))
    add(`${status} without X-RateLimit-Limit`, `X-RateLimit-Limit: ${res.headers.get("X-RateLimit-Limit")}`);
  if ((c.op.public || c.op.reporter) && res.headers.get("Access-Control-Allow-Origin") !== "*")
    add(`${status} of a public route without CORS`);
  if (c.method === "HEAD" || preflight) return problems;
  if (status === 204) {
    if (res.text !== "") add("204 with a body");
  } else if (status < 400) {
    const documented = op?.responses.get(status) ?? [];
    if (!documented.includes(essence(res.headers.get("Content-Type"))))
      add(`success Content-Type ${res.headers.get("Content-Type")}`, `documented: ${documented.join(", ")}`);
    // A creation points at what it made, at the address the document itself gives.
    const self = status === 201 ? selfLinkOf(res.text) : undefined;
    if (self && !(res.headers.get("Location") ?? "").endsWith(self))
      add("201 whose Location is not its links.self", `Location: ${res.headers.get("Location")}, links.self: ${self}`);
    // A sparse fieldset (fields[TYPE]) leaves out, by request, members the schema lists as always there.
    const sparse = /(^|&)fields\[/.test(c.query ?? "");
    // The documented schema is the JSON answer's: a page (text/html) or a signed receipt is judged by its type alone.
    const json = /json/.test(essence(res.headers.get("Content-Type")));
    const schema = sparse || !json ? undefined : op?.successSchemas.get(status);
    const where = schema && mismatchOf(schema, components, res.text);
    if (where) add(`${status} body departs from its documented schema at ${where.replace(/\/\d+(?=\/|$)/g, "/*")}`, res.text.slice(0, 300));
  } else {
    if (essence(res.headers.get("Content-Type")) !== c.op.errorMediaType)
      add(`error Content-Type ${res.headers.get("Content-Type")}`, `documented: ${c.op.errorMediaType}`);
    const why = errorDocumentProblem(res, errorCodes);
    if (why) add(`not a valid error document: ${why}`, res.text.slice(0, 200));
    if (status === 401 && !/^Bearer/i.test(res.headers.get("WWW-Authenticate") ?? "")) add("401 without WWW-Authenticate: Bearer");
    if (status === 429 && !res.headers.get("Retry-After")) add("429 without Retry-After");
    if (status === 405) {
      const methods = [...ops.values()].filter((o) => o.template === c.op.template).map((o) => o.method);
      const expected = new Set([...methods, ...(methods.includes("GET") ? ["HEAD"] : [])]);
      const allow = new Set(
        (res.headers.get("Allow") ?? "")
          .split(",")
          .map((m) => m.trim())
          .filter(Boolean),
      );
      allow.delete("OPTIONS");
      if ([...expected].some((m) => !allow.has(m)) || [...allow].some((m) => !expected.has(m)))
        add(`405 Allow: ${res.headers.get("Allow")}`, `documented: ${[...expected].join(", ")}`);
    }
  }
  return problems;
}

function selfLinkOf(text: string): string | undefined {
  try {
    const self = JSON.parse(text)?.data?.links?.self;
    return typeof self === "string" ? self : undefined;
  } catch {
    return undefined;
  }
}

function mismatchOf(schema: Schema, components: Components, text: string): string | undefined {
  try {
    return mismatch(schema, components, JSON.parse(text));
  } catch {
    return "(not JSON)";
  }
}

function errorDocumentProblem(res: Answer, codes: Set<string>): string | undefined {
  let doc: { errors?: unknown; meta?: { errors_omitted?: unknown } };
  try {
    doc = JSON.parse(res.text);
  } catch {
    return "not JSON";
  }
  if (!Array.isArray(doc?.errors) || doc.errors.length === 0) return "no errors array";
  if (doc.errors.length > 25) return "more than 25 errors";
  const omitted = doc.meta?.errors_omitted;
  if (omitted !== undefined && !(Number.isInteger(omitted) && (omitted as number) > 0)) return "bad meta.errors_omitted";
  // JSON:API: "an array of error objects", each problem once.
  if (new Set(doc.errors.map((e) => JSON.stringify(e))).size < doc.errors.length) return "the same error listed twice";
  for (const e of doc.errors as Record<string, unknown>[]) {
    if (!e || typeof e !== "object") return "an error is not an object";
    if (e.status !== String(res.status)) return "an error's status is not the HTTP status";
    if (typeof e.code !== "string" || !codes.has(e.code)) return "an error's code is not one of the document's";
    if (typeof e.title !== "string") return "no title";
    if (e.detail !== undefined && typeof e.detail !== "string") return "detail not a string";
    if (e.source !== undefined) {
      const entries = Object.entries(e.source as object);
      const [member, value] = entries[0] ?? [];
      if (entries.length !== 1 || !["pointer", "parameter", "header"].includes(member!) || typeof value !== "string")
        return "source is not one pointer, parameter or header";
      if (member === "pointer" && !/^(\/([^~]|~[01])*)*$/.test(value)) return "source.pointer is not a JSON Pointer";
      if (member !== "pointer" && value === "") return `source.${member} is empty`;
    }
  }
  return undefined;
}
