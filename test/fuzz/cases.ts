import fc from "fast-check";
import { bodyArbitrary, whyBodyMustFail, type Body } from "./bodies";
import type { Operation, QueryParam } from "./operations";
import { placeholder, TYPES, type Pool } from "./pool";
import { arbitraryOf, patternOf, type Components, type Ids } from "./schema";

/** One generated request, printable as it is: ids and keys are placeholders until it is sent. */
export interface FuzzCase {
  op: Operation;
  method: string;
  /** The path's parameter values, raw (encoded when sent). */
  pathValues: string[];
  /** The query string, already encoded, without "?". */
  query: string;
  headers: Record<string, string>;
  /** undefined: the operation's own media type; null: no Content-Type at all. */
  contentType?: string | null;
  body?: Body;
  /** Sent once with this Authorization header (null: none) instead of once per key. */
  authorization?: string | null;
  /** What is wrong with it, by the document and the hardening rules, whatever the key. */
  mustFail: string[];
  focus: string;
}

export const KEY = { org: "{{key:org}}", operator: "{{key:operator}}" };

const NON_UUIDS = [
  "1",
  "abc",
  "-1",
  "1e309",
  "null",
  "undefined",
  "' OR 1=1 --",
  "%00",
  "\u0000",
  "é😀",
  "a".repeat(5_000),
  "00000000000000000000000000000000",
  "00000000-0000-0000-0000-00000000000g",
];
const NIL = "00000000-0000-0000-0000-000000000000";

function pathArbitrary(op: Operation, bad: boolean): fc.Arbitrary<{ values: string[]; why?: string }> {
  const valid = op.pathParams.map((p) => placeholder("A", p.type));
  if (!bad || op.pathParams.length === 0) return fc.constant({ values: valid });
  return fc
    .tuple(
      fc.nat({ max: op.pathParams.length - 1 }),
      fc.nat({ max: 4 }),
      fc.constantFrom(...NON_UUIDS),
      fc.uuid(),
      fc.constantFrom(...TYPES),
    )
    .map(([i, how, junk, uuid, otherType]) => {
      const values = [...valid];
      const type = op.pathParams[i]!.type;
      // Another organization's record: right for an operator's reads, a 404 for an organization key.
      if (how === 0) values[i] = placeholder("B", type);
      else if (how === 1 && otherType !== type && !(otherType === "slug" || otherType === "shortcode"))
        values[i] = placeholder("A", otherType);
      else if (how === 2) values[i] = uuid;
      else if (how === 3) values[i] = NIL;
      // A junk slug must not be one that a directory made during the run may have.
      else values[i] = type === "slug" && /^[a-z0-9-]{1,64}$/.test(junk) ? `${junk}_` : junk;
      // A number in a path (a revision's, a policy version's) may well name one that exists: "1" is no junk there.
      const mayExist = op.pathParams[i]!.name === "number" && /^[1-9][0-9]*$/.test(values[i]!);
      const why = mayExist || values[i] === placeholder("B", type) || values[i] === valid[i] ? undefined : `the path names no ${type}`;
      return { values, why };
    });
}

const BAD_VALUES: Record<string, string[]> = {
  integer: ["0", "-1", "1e309", "1.5", "abc", "", "0x10", " 1", "1e2", "NaN", "Infinity"],
  boolean: ["", "yes", "2", "tru"],
  enum: ["", "nope", "--created_at", "created_at,updated_at"],
  uuid: ["", "not-a-uuid", "1", "00000000-0000-0000-0000-00000000000g", "';--"],
  "date-time": ["", "yesterday", "2026-13-45T00:00:00Z", "1e309"],
  text: ["", "x".repeat(5_000)],
  // Opaque cursors: only the server's own are well-formed.
  // Forged ones too: well-formed, naming a sort every list has or a position, with a value of the wrong type.
  cursor: ["not-a-cursor", "%%%", "eyJ4IjoxfQ", "a".repeat(1_025), ...forgedCursors()],
};
const UNKNOWN = [
  "foo",
  "q[unknown_eq]",
  "page[offset]",
  "filter[x]",
  "q[brief_id_eq",
  "page",
  "page[number][x]",
  "include",
  "fields[policy]",
  "sort[]",
  "%ZZ",
  "a%FF",
];
/** Cursors as the server makes them (base64url of [sort, value, id]), with values of the wrong type. */
function forgedCursors(): string[] {
  const id = "01900000-0000-7000-8000-000000000000";
  const b64 = (parts: unknown[]) => btoa(JSON.stringify(parts)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  return [b64(["-created_at", 0, id]), b64(["created_at", 1e12, id]), b64(["-updated_at", -1, id]), b64(["position", "0", id])];
}

const enc = (s: string) => encodeURIComponent(s).replace(/%5B/g, "[").replace(/%5D/g, "]");

function validValue(p: QueryParam, pool: Pool): fc.Arbitrary<string> {
  const s = p.schema;
  if (s.enum) return fc.constantFrom(...s.enum.map(String));
  if (s.type === "integer") return fc.integer({ min: s.minimum ?? 1, max: s.maximum ?? 50 }).map(String);
  if (s.type === "boolean") return fc.constantFrom("true", "false");
  if (s.format === "uuid") return fc.oneof(fc.constantFrom(...pool.all()), fc.uuid());
  // page[after]= (empty) starts cursor mode at the first page; other cursors only the server makes,
  // however many strings their pattern (base64url) admits.
  if (isCursor(p)) return fc.constant("");
  if (s.pattern) return fc.stringMatching(patternOf(s.pattern));
  if (s.format === "date-time")
    return fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString());
  return fc.constant("report.txt");
}

const isCursor = (p: QueryParam) => p.name === "page[after]" || p.name === "page[before]";

const hasValidValue = (p: QueryParam) => p.name !== "page[before]";

function badValues(p: QueryParam): string[] {
  const s = p.schema;
  if (isCursor(p)) return BAD_VALUES.cursor!;
  // A patterned value (a sparse fieldset's members): whatever the pattern refuses.
  if (s.pattern) return ["", " ", "report.txt", "x".repeat(5_000), "a,,b"].filter((v) => !patternOf(s.pattern!).test(v));
  const key = s.enum ? "enum" : s.type === "integer" ? "integer" : s.type === "boolean" ? "boolean" : (s.format ?? "text");
  return [...(BAD_VALUES[key] ?? [""]), ...(s.maximum !== undefined ? [String(s.maximum + 1), "1".repeat(30)] : [])];
}

function queryArbitrary(op: Operation, bad: boolean, pool: Pool): fc.Arbitrary<{ query: string; why?: string }> {
  const isList = op.query.length > 0;
  const valid = fc
    .subarray(op.query.filter(hasValidValue))
    .chain((ps) => fc.tuple(...ps.map((p) => validValue(p, pool).map((v) => `${p.name}=${enc(v)}`))) as fc.Arbitrary<string[]>);
  if (!bad) return valid.map((parts) => withCursorRule(parts.join("&")));
  const kinds: fc.Arbitrary<{ extra: string; why?: string }>[] = [
    fc.constantFrom(...UNKNOWN).map((name) => ({ extra: `${name}=1`, why: isList ? `unknown query parameter ${name}` : undefined })),
  ];
  if (isList) {
    // Filters are where a lenient parser hides most: they get most of the bad values.
    const filters = op.query.filter((p) => p.name.startsWith("q["));
    const targets = fc.oneof(fc.constantFrom(...op.query), ...(filters.length ? [fc.constantFrom(...filters)] : []));
    const badValue = targets.chain((p) =>
      fc.constantFrom(...badValues(p)).map((v) => ({ extra: `${p.name}=${enc(v)}`, why: `bad ${p.name} ${JSON.stringify(v)}` })),
    );
    kinds.push(badValue, badValue, badValue);
    const valued = op.query.filter((p) => badValues(p).includes(""));
    if (valued.length) kinds.push(fc.constantFrom(...valued).map((p) => ({ extra: p.name, why: `${p.name} with no value` })));
    // Not errors by any rule, but must not be 5xx: repeats and page numbers past any page.
    kinds.push(
      fc
        .constantFrom(
          "page[number]=1&page[number]=2",
          "page[number]=999999999",
          `page[number]=${"9".repeat(400)}`,
          "sort=created_at&sort=-created_at",
        )
        .map((extra) => ({ extra })),
    );
  }
  return fc.tuple(valid, fc.oneof(...kinds)).map(([parts, { extra, why }]) => {
    const query = withCursorRule([...parts, extra].join("&"));
    return { query: query.query, why: why ?? query.why };
  });
}

/** Pages go by number or by cursor: both at once is a 400. */
function withCursorRule(query: string): { query: string; why?: string } {
  const mixed = /(^|&)page\[number\]=/.test(query) && /(^|&)page\[(after|before)\]/.test(query);
  return { query, why: mixed ? "page[number] beside a cursor" : undefined };
}

const MEDIA_OK = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/vnd.api+json",
  'application/vnd.api+json; profile="https://example.com/p"',
];
const MEDIA_BAD = [
  "text/plain",
  "application/vnd.api+json;charset=utf-8",
  "application/vnd.api+json; charset=utf-8",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/json-patch+json",
  "",
  "application/",
  "*/*",
];

const AUTH_BAD = [
  null,
  "",
  "Bearer",
  "Bearer ",
  "Basic dXNlcjpwYXNz",
  "Bearer vdp_short",
  `Bearer vdp_${"A".repeat(40)}`,
  KEY.org,
  `Bearer ${KEY.org} extra`,
  `Bearer ${KEY.org}x`,
  `Token ${KEY.org}`,
  `Bearer ${"a".repeat(8_000)}`,
  `Bearer ${KEY.org}, Bearer ${KEY.operator}`,
];
const AUTH_OK = [`bearer ${KEY.org}`, `BEARER ${KEY.operator}`];

const HEADERS = fc.oneof(
  fc.constantFrom("", "k".repeat(256)).map((v) => ({ headers: { "Idempotency-Key": v }, idempotencyBad: true })),
  fc
    .oneof(fc.constant("k".repeat(255)), fc.uuid(), fc.constant("a key, with: spaces"))
    .map((v) => ({ headers: { "Idempotency-Key": v }, idempotencyBad: false })),
  fc
    .oneof(fc.constantFrom("", "x".repeat(2_000), "abc", "<script>alert(1)</script>", "../../etc/passwd", "1; DROP TABLE x"), fc.uuid())
    .map((v) => ({ headers: { "X-Request-Id": v }, idempotencyBad: false })),
  fc.constantFrom("text/html", "application/xml", "*/*;q=0").map((v) => ({ headers: { Accept: v }, idempotencyBad: false })),
  fc.constantFrom("not-an-ip", "1.2.3.4, 5.6.7.8", "::1", "").map((v) => ({ headers: { "CF-Connecting-IP": v }, idempotencyBad: false })),
  fc
    .constantFrom("garbage", "00000000-00000005-00000000-", "x".repeat(500))
    .map((v) => ({ headers: { "X-D1-Bookmark": v }, idempotencyBad: false, bookmarkBad: true })),
  // A browser on another site: the API takes no cookies, so nothing changes (and nothing may fail for it).
  fc
    .constantFrom<Record<string, string>[]>(
      { Origin: "https://attacker.example", "Sec-Fetch-Site": "cross-site" },
      { Origin: "null" },
      { Origin: "https://api.vdp.test", "Sec-Fetch-Site": "same-origin" },
    )
    .map((headers) => ({ headers, idempotencyBad: false })),
);

/** Requests aimed at one operation, each with one thing (at most) wrong, and why it must fail if so. */
export function caseArbitrary(op: Operation, methods: string[], components: Components, pool: Pool): fc.Arbitrary<FuzzCase> {
  const ids: Ids = {
    resourceType: op.resourceType,
    pathId: op.pathParams.length ? placeholder("A", op.pathParams.at(-1)!.type) : undefined,
    of: (type) => [placeholder("A", type), placeholder("B", type)],
  };
  const focuses: [string, number][] = [
    ["valid", 2],
    ["body", op.body ? 8 : 1],
    ["path", op.pathParams.length ? 3 : 0],
    ["query", op.query.length ? 4 : 1],
    ["headers", 2],
    ["media", op.body ? 2 : 0],
    ["auth", op.public ? 0 : 1],
    ["method", 1],
  ];
  const focus = fc.oneof(...focuses.filter(([, w]) => w > 0).map(([f, weight]) => ({ weight, arbitrary: fc.constant(f) })));
  const validBody = op.body
    ? arbitraryOf(op.body.schema, components, ids).map((v): Body => ({ text: JSON.stringify(v), note: "valid instance" }))
    : fc.constant(undefined);
  return focus.chain((f) =>
    fc
      .record({
        path: pathArbitrary(op, f === "path"),
        query: queryArbitrary(op, f === "query", pool),
        // Operations that take no body get one now and then too: it must be ignored or refused, never a 5xx.
        body: f === "body" ? bodyArbitrary(op.body?.schema ?? { type: "object" }, components, ids) : validBody,
        media:
          f === "media"
            ? fc.oneof(
                fc.constantFrom(...MEDIA_OK).map((m) => ({ m: m as string | null, bad: false })),
                fc.constantFrom(null, ...MEDIA_BAD).map((m) => ({ m, bad: true })),
              )
            : fc.constant(undefined),
        headers:
          f === "headers"
            ? HEADERS
            : op.method === "POST"
              ? fc.option(
                  fc.uuid().map((v) => ({ headers: { "Idempotency-Key": v }, idempotencyBad: false })),
                  { nil: undefined },
                )
              : fc.constant(undefined),
        auth:
          f === "auth"
            ? fc.oneof(
                fc.constantFrom(...AUTH_BAD).map((a) => ({ a, bad: true })),
                fc.constantFrom(...AUTH_OK).map((a) => ({ a: a as string | null, bad: false })),
              )
            : fc.constant(undefined),
        method:
          f === "method"
            ? fc.constantFrom(...["PUT", "OPTIONS", "HEAD", "GET", "POST", "PATCH", "DELETE"].filter((m) => m !== op.method))
            : fc.constant(op.method),
      })
      .map((r) => {
        const sendsBody = r.body !== undefined && !["GET", "HEAD"].includes(r.method);
        const mustFail: string[] = [];
        if (r.path.why) mustFail.push(r.path.why);
        if (r.query.why) mustFail.push(r.query.why);
        if (op.body && sendsBody && r.method === op.method) {
          const why = whyBodyMustFail(r.body!, op.body.schema, components, op.template);
          if (why) mustFail.push(why);
          if (r.media?.bad) mustFail.push(`Content-Type ${JSON.stringify(r.media.m)}`);
        }
        // Placeholders only grow when replaced by ids, so a body over the limit here is over it when sent.
        if (sendsBody && new TextEncoder().encode(r.body!.text).length + (r.body!.badBytes?.bytes.length ?? 0) > 1_048_576)
          mustFail.push("body over 1 MiB");
        if (r.headers?.idempotencyBad && r.method === "POST") mustFail.push("bad Idempotency-Key");
        if (r.headers && "bookmarkBad" in r.headers && !op.public) mustFail.push("malformed X-D1-Bookmark");
        if (r.auth?.bad) mustFail.push(`Authorization ${JSON.stringify(r.auth.a)}`);
        const allowed = methods.includes(r.method) || (r.method === "HEAD" && methods.includes("GET")) || r.method === "OPTIONS";
        if (!allowed) mustFail.push(`${r.method} is not an operation of ${op.template}`);
        return {
          op,
          method: r.method,
          pathValues: r.path.values,
          query: r.query.query,
          headers: r.headers?.headers ?? {},
          contentType: r.media ? r.media.m : undefined,
          body: sendsBody ? r.body : undefined,
          authorization: r.auth ? r.auth.a : undefined,
          mustFail,
          focus: f,
        } satisfies FuzzCase;
      }),
  );
}
