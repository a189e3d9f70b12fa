import type { OpenAPIHono } from "@hono/zod-openapi";
import { CLIENT_REQUEST_ID_PATTERN, IDEMPOTENCY_KEY_PATTERN } from "./request-headers";
import { ERROR_CODES, aboutError, type ErrorCode } from "./errors";
import { PUBLIC_CACHE_CONTROL } from "./cache";
import { D1_BOOKMARK_PATTERN } from "./middleware";
import { ACCESS, ACCESS_EXTENSION, type Access, SCOPE_EXTENSION } from "./openapi/responses";
import { LIMITS, RATES } from "../lib/limits";
import { DOCUMENTED_FACTS, type DocumentedFacts } from "./route-facts";

// What applies to many operations at once is added here, once, so every route (and every route still
// to come) gets it without declaring it: response headers, the Idempotency-Key and X-D1-Bookmark
// parameters, parameter and operation descriptions, the 304 of cached public reads, declared tags.
// A route declares only what is its own: operationId, tags, summary, request, its responses.

/** Every tag an operation may use, in the reference's order. A route with another tag fails the lint test. */
export const TAGS = [
  { name: "Index", description: "Where to start: the API's name, version and links, with no key." },
  {
    name: "Organizations",
    description: "The organizations on the platform. Operators create and update them; an organization key reads its own.",
  },
  {
    name: "API keys",
    description: "Keys are made by operators for an organization and shown once, in the create response. Only their SHA-256 is stored.",
  },
  {
    name: "Policies",
    description:
      "Disclosure policies: contact, terms (safe harbor, disclosure timeline, bounty), scope and branding. `published_at: null` " +
      "keeps or makes one a draft.",
  },
  {
    name: "Assets",
    description: "The organization's assets (domains, URLs, IP ranges, apps, ...), checked and stored canonically per kind.",
  },
  { name: "Briefs", description: "The public entry points researchers report through, each optionally under a policy." },
  { name: "Vulns", description: "Reports in the organization's inbox. These endpoints answer `application/json` in the JSON:API shape." },
  { name: "Vuln comments", description: "The conversation on a report: internal notes, and replies the reporter sees." },
  { name: "Vuln attachments", description: "Files attached to a report, stored in R2 and always served as downloads." },
  {
    name: "Regulatory reports",
    description:
      "The EU Cyber Resilience Act's clock for an actively exploited vulnerability: what the organization filed (early warning, " +
      "notification, final report), and drafts of the text to file. The platform keeps the record; it sends nothing to any authority.",
  },
  {
    name: "Webhooks",
    description: "Signed event deliveries (Standard Webhooks) to the organization's endpoints, and the event types to subscribe to.",
  },
  { name: "Webhook deliveries", description: "The delivery log of a webhook: every attempt, kept 30 days; redeliveries and pings." },
  {
    name: "Contacts",
    description:
      "The organization's people the platform e-mails (responders and escalation contacts, each confirmed by a link), and the log of " +
      "every e-mail sent to them and to reporters (never its body).",
  },
  {
    name: "Members",
    description:
      "The organization's people who sign in (owners, triagers, viewers), each invited by an e-mailed link whose page's button " +
      "joins them; they sign in at /console/sign-in. An organization keeps at least one owner.",
  },
  {
    name: "Canned responses",
    description:
      "Replies the organization keeps ready for its reports, each with the visibility a comment made from it gets; " +
      "{{reporter_name}}, {{shortcode}} and {{policy_url}} in its body are filled with the report's when it is used. Members read " +
      "them; owners change them.",
  },
  {
    name: "Advisories",
    description:
      "What the organization tells the world about vulnerabilities it fixed: drafts, publication (revision 1, the disclosure " +
      "deadline of its reports met, Advisory::Published), revisions that never rewrite the past, withdrawal; credits of reporters by " +
      "their consent. Published ones are public as JSON:API, CSAF 2.0, OSV and CVE JSON 5.1.",
  },
  {
    name: "Metrics",
    description:
      "What a programme is judged on: BOD 20-01's seven figures and the share of deadlines met, per organization or for the platform.",
  },
  {
    name: "Audit log",
    description:
      "Every change by anyone (a key, a member, an operator, a reporter, the platform), written in the change's own batch: who, " +
      "what, to what, which members (never their values), from where. Kept 400 days; the database refuses to change a row.",
  },
  { name: "Directories", description: "Public directories of organizations, curated by operators and readable with any key." },
  {
    name: "Directory listings",
    description:
      "An organization's place in a directory: whether it shows, and which of its published policies and briefs, in which order.",
  },
  {
    name: "Reporter",
    description: "The reporter's own view of a report, by the token they were given at submission: its state, the conversation and files.",
  },
  { name: "Public", description: "No key: published briefs and directories (cached at the edge) and report submission." },
] as const;

type Json = Record<string, unknown>;
/** The document the routes generate (OpenAPI 3.0). */
export type OpenApiDocument = ReturnType<OpenAPIHono["getOpenAPIDocument"]>;
type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Json[];
  responses: Record<string, Json & { headers?: Record<string, unknown> }>;
};

const header = (description: string, schema: Json = { type: "string" }) => ({ description, schema });

const HEADERS = {
  RequestId: header("The server's id for this request, the id its logs use; also `meta.request_id` of every error.", {
    type: "string",
    format: "uuid",
  }),
  ClientRequestId: header(
    `The client's own \`X-Request-Id\`, echoed when well-formed (1 to ${LIMITS.clientRequestIdLength} of \`A-Za-z0-9_-=.:\`); never ` +
      `used as the request id.`,
    { type: "string", maxLength: LIMITS.clientRequestIdLength, pattern: CLIENT_REQUEST_ID_PATTERN },
  ),
  D1Bookmark: header("The D1 session's latest bookmark. Send it back as `X-D1-Bookmark` to read this request's writes from any replica.", {
    type: "string",
    maxLength: 59,
    pattern: D1_BOOKMARK_PATTERN,
  }),
  Location: header("The created resource (its `links.self`).", { type: "string", format: "uri-reference", maxLength: 255 }),
  RetryAfter: header("Seconds to wait before retrying.", { type: "integer", format: "int32", minimum: 1, maximum: 3600 }),
  IdempotentReplayed: header("`true` when this is the stored response of an earlier request with the same Idempotency-Key.", {
    type: "string",
    enum: ["true"],
  }),
  WWWAuthenticate: header("`Bearer`: the scheme this API takes (realm vdp-report on the reporter's routes).", {
    type: "string",
    enum: ['Bearer realm="vdp-api"', 'Bearer realm="vdp-report"'],
  }),
  WWWAuthenticateScope: header(
    "RFC 6750's challenge of a key (or a member's role) that lacks the scope the operation needs, naming it: " +
      '`Bearer error="insufficient_scope", scope="vulns"`.',
    { type: "string", maxLength: 64, pattern: '^Bearer error="insufficient_scope", scope="(read|vulns|advisories|settings|members)"$' },
  ),
  ETag: header("A strong validator of the document; send it as `If-None-Match` for a 304.", {
    type: "string",
    maxLength: 34,
    pattern: '^"[0-9a-f]{32}"$',
  }),
  XCache: header("`HIT` when served from the edge cache without touching the database, else `MISS`.", {
    type: "string",
    enum: ["HIT", "MISS"],
  }),
  CacheControl: header("How long shared caches may keep the answer.", { type: "string", enum: [PUBLIC_CACHE_CONTROL] }),
  AccessControlAllowOrigin: header("`*`: public reads and submissions may be made from any web page.", { type: "string", enum: ["*"] }),
  RateLimitLimit: header(
    `The requests a minute the limit that counts this caller allows: ${RATES.apiKey} with an API key, ${RATES.reporter} with a ` +
      `reporter's token, ${RATES.publicReads} public reads and ${RATES.publicSubmits} submissions from one address, ` +
      `${RATES.unauthenticated} from one address without a valid key or token (every 401). Past it the answer is a 429 with Retry-After.`,
    { type: "integer", format: "int32", minimum: 1, maximum: Math.max(...Object.values(RATES)) },
  ),
} as const;

const ref = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

const PARAMETERS = {
  IdempotencyKey: {
    name: "Idempotency-Key",
    in: "header",
    required: false,
    description:
      `1 to ${LIMITS.idempotencyKeyLength} printable ASCII characters (a UUID will do). The same key with the same body within 24 ` +
      `hours replays the first response (Idempotent-Replayed: true); ` +
      "with another body it is a 422 idempotency_key_reused; while the first request is in flight, a 409. Scoped to the API key " +
      "(public routes: the client IP).",
    schema: { type: "string", minLength: 1, maxLength: LIMITS.idempotencyKeyLength, pattern: IDEMPOTENCY_KEY_PATTERN },
  },
  D1Bookmark: {
    name: "X-D1-Bookmark",
    in: "header",
    required: false,
    description:
      "A bookmark from an earlier answer's `X-D1-Bookmark`: the request reads at least what that answer had written. Anything else " +
      "is a 400.",
    schema: { type: "string", maxLength: 59, pattern: D1_BOOKMARK_PATTERN },
  },
  ClientRequestId: {
    name: "X-Request-Id",
    in: "header",
    required: false,
    description:
      `Your own id for the request, echoed as \`X-Client-Request-Id\` when it is 1 to ${LIMITS.clientRequestIdLength} of ` +
      `\`A-Za-z0-9_-=.:\` (any other value is ignored, never refused); the server always makes its own \`X-Request-Id\`.`,
    schema: { type: "string" },
  },
  IfNoneMatch: {
    name: "If-None-Match",
    in: "header",
    required: false,
    description: "The `ETag` of a copy you hold: a 304 with no body if it is still current.",
    schema: { type: "string" },
  },
} as const;

/** Descriptions of parameters by name, for the routes that declare none of their own. */
function parameterDescription(name: string, location: string): string | undefined {
  const known: Record<string, string> = {
    "page[number]": "Pages by number: which page, from 1.",
    "page[size]": "How many items per page, 1 to 100 (default 25).",
    sort: "Order: `created_at`, `updated_at`, or either with `-` for newest first (default `-created_at`).",
    id: "The resource's id.",
    shortcode: "The public shortcode, e.g. `DEMX-0001`.",
    slug: "The directory's slug.",
  };
  if (known[name]) return known[name];
  if (location === "path" && name.endsWith("_id")) return `The ${name.slice(0, -3).replaceAll("_", " ")}'s id.`;
  const filter = /^q\[(\w+?)_(eq|gteq|lteq)\]$/.exec(name);
  if (filter) {
    const [, field, op] = filter;
    const relation = { eq: "equals", gteq: "is at or after", lteq: "is at or before" }[op as "eq" | "gteq" | "lteq"];
    return `Filter: only items whose \`${field}\` ${relation} this value.`;
  }
  return undefined;
}

/**
 * The scope an operation needs, from its 403 (whose mark is removed here), said where tools look for it:
 * the operation's own `x-scope`. (OpenAPI 3.0 lets only OAuth 2 and OpenID Connect requirements name
 * scopes; this API's bearer keys are neither.)
 */
function operationScope(op: Operation): string | undefined {
  const forbidden = op.responses["403"] as (Json & { [SCOPE_EXTENSION]?: string }) | undefined;
  const scope = forbidden?.[SCOPE_EXTENSION];
  if (forbidden) delete forbidden[SCOPE_EXTENSION];
  if (scope) (op as Record<string, unknown>)[SCOPE_EXTENSION] = scope;
  return scope;
}

/** Who may call an operation, from what it declares: no security, or the access kind of its 403 (removed here), and its scope. */
function accessSentence(op: Operation, scope: string | undefined): string {
  if (Array.isArray(op.security) && op.security.length === 0) return "No key needed.";
  const forbidden = op.responses["403"] as (Json & { [ACCESS_EXTENSION]?: Access }) | undefined;
  const access = forbidden?.[ACCESS_EXTENSION];
  if (forbidden) delete forbidden[ACCESS_EXTENSION];
  if (access === "operator") return "Needs an operator key.";
  const needs = scope ? ` An organization's key (or member) needs the \`${scope}\` scope.` : "";
  if (access) return `Needs an API key; 403 for ${ACCESS[access].forbidden}.${needs}`;
  return `Needs an API key (organization or operator).${needs}`;
}

/** The errors section of the reference: every code, its status and meaning, each with its anchor. */
export function errorsMarkdown(): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => {
    const { status, title, about } = ERROR_CODES[code];
    return `| ${status} | [\`${code}\`](${aboutError(code)}) | ${title} | ${about} |`;
  });
  return ["| status | code | title | meaning |", "|---|---|---|---|", ...rows].join("\n");
}

const METHODS = ["get", "put", "post", "patch", "delete", "head", "options"] as const;

/** Applies the rules above to every operation of a generated document, in place. */
export function finishDocument(generated: OpenApiDocument): OpenApiDocument {
  // The generator's types describe any document; this one is read and extended as plain JSON.
  const doc: { paths?: Record<string, object>; components?: object; tags?: unknown[] } = generated;
  doc.tags = TAGS.map((t) => ({ ...t }));
  const components = (doc.components ??= {}) as Json & { parameters?: Json; headers?: Json };
  components.parameters = { ...(components.parameters ?? {}), ...PARAMETERS };
  components.headers = { ...(components.headers ?? {}), ...HEADERS };

  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, unknown>)[method] as Operation | undefined;
      if (!op) continue;
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      const facts: DocumentedFacts = (op as Record<string, unknown>)[DOCUMENTED_FACTS] ?? {};
      delete (op as Record<string, unknown>)[DOCUMENTED_FACTS];
      const cachedRead = method === "get" && facts.cached === true;
      const under = (p: string) => path === p || path.startsWith(`${p}/`);

      // Every operation says who may call it, after its own description (or its summary).
      const scope = operationScope(op);
      const access = accessSentence(op, scope);
      const said = op.description ?? op.summary ?? "";
      op.description = `${said}${said === "" || said.endsWith(".") ? "" : "."} ${access}`.trim();
      for (const p of op.parameters ?? []) {
        if (!p.description && typeof p.name === "string") {
          const text = parameterDescription(p.name, String(p.in));
          if (text) p.description = text;
        }
      }
      const extra: Json[] = [{ $ref: "#/components/parameters/ClientRequestId" }];
      if (method === "post") extra.push({ $ref: "#/components/parameters/IdempotencyKey" });
      if (!isPublic && under("/v1")) extra.push({ $ref: "#/components/parameters/D1Bookmark" });
      if (cachedRead) extra.push({ $ref: "#/components/parameters/IfNoneMatch" });
      op.parameters = [...(op.parameters ?? []), ...extra];

      if (cachedRead && !op.responses["304"]) {
        op.responses["304"] = { description: "Not modified: the copy named by If-None-Match is current (no body)." };
      }
      for (const [status, response] of Object.entries(op.responses)) {
        const code = Number(status);
        const headers: Record<string, unknown> = { "X-Request-Id": ref("RequestId"), "X-Client-Request-Id": ref("ClientRequestId") };
        if (code === 201) headers.Location = ref("Location");
        if (code === 429 || code === 503) headers["Retry-After"] = ref("RetryAfter");
        if (code === 401) headers["WWW-Authenticate"] = ref("WWWAuthenticate");
        if (code === 403 && scope) headers["WWW-Authenticate"] = ref("WWWAuthenticateScope");
        if (method === "post" && code >= 200 && code < 300) headers["Idempotent-Replayed"] = ref("IdempotentReplayed");
        if (!isPublic && under("/v1") && code !== 401) headers["X-D1-Bookmark"] = ref("D1Bookmark");
        if (cachedRead && (code === 200 || code === 304)) {
          Object.assign(headers, { ETag: ref("ETag"), "X-Cache": ref("XCache"), "Cache-Control": ref("CacheControl") });
        }
        if (isPublic || facts.cors) headers["Access-Control-Allow-Origin"] = ref("AccessControlAllowOrigin");
        if ((code >= 200 && code < 300) || (code >= 400 && code < 500)) headers["X-RateLimit-Limit"] = ref("RateLimitLimit");
        response.headers = { ...(response.headers ?? {}), ...headers };
      }
    }
  }
  sizeByFormat(doc);
  return generated;
}

const INT32 = 2 ** 31;

/**
 * What a schema's type and format already imply, said where tools look for it: every integer's format
 * (int32 when its declared bounds fit in 32 bits, else int64: every integer this API reads or writes
 * is a safe JavaScript integer), and a UUID's 36 characters.
 */
function sizeByFormat(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) sizeByFormat(item);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const schema = node as { type?: unknown; format?: unknown; minimum?: unknown; maximum?: unknown; maxLength?: unknown };
  if (schema.type === "integer" && schema.format === undefined) {
    const fits =
      typeof schema.minimum === "number" && schema.minimum >= -INT32 && typeof schema.maximum === "number" && schema.maximum < INT32;
    schema.format = fits ? "int32" : "int64";
  }
  if (schema.type === "string" && schema.format === "uuid" && schema.maxLength === undefined) schema.maxLength = 36;
  for (const value of Object.values(node)) sizeByFormat(value);
}
