import { createConfig, lintFromString } from "@redocly/openapi-core";
import spectralCore from "@stoplight/spectral-core";
import spectralParsers from "@stoplight/spectral-parsers";
import { oas } from "@stoplight/spectral-rulesets";
import owasp from "@stoplight/spectral-owasp-ruleset";
import path from "node:path";

export interface Finding {
  linter: "redocly" | "spectral";
  rule: string;
  severity: string;
  message: string;
  where: string;
}

/** Redocly's `recommended` ruleset: every problem, errors and warnings alike. */
export async function redoclyFindings(text: string): Promise<Finding[]> {
  const config = await createConfig({ extends: ["recommended"] });
  const problems = await lintFromString({ source: text, absoluteRef: "openapi.json", config });
  return problems.map((p) => ({
    linter: "redocly",
    rule: p.ruleId,
    severity: p.severity,
    message: p.message,
    where: p.location[0]?.pointer ?? "",
  }));
}

const SEVERITIES = ["error", "warn", "info", "hint"];
const spectralFindingsOf = (diagnostics: Awaited<ReturnType<spectralCore.Spectral["run"]>>): Finding[] =>
  diagnostics.map((d) => ({
    linter: "spectral",
    rule: String(d.code),
    severity: SEVERITIES[d.severity] ?? String(d.severity),
    message: d.message,
    where: d.path.join("."),
  }));

/** Spectral's `spectral:oas` ruleset: its default rules, as `extends: spectral:oas` runs them; every diagnostic (errors, warnings, information and hints). */
export async function spectralFindings(text: string): Promise<Finding[]> {
  const { Spectral, Document } = spectralCore;
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [oas as never] } as never);
  const diagnostics = await spectral.run(new Document(text, spectralParsers.Json, "openapi.json"));
  return spectralFindingsOf(diagnostics);
}

type Doc = { servers?: { url: string }[]; paths: Record<string, Record<string, any>> };

/** A JSON pointer into the document, in the form a Spectral override names it (#/paths/~1v1~1p/get). */
const pointer = (...tokens: string[]) =>
  `#/${tokens.map((t) => encodeURIComponent(t.replaceAll("~", "~0").replaceAll("/", "~1"))).join("/")}`;
const publicOperations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => Array.isArray(op.security) && op.security.length === 0)
      .map(([method]) => ({ path, method })),
  );

/** Every place in the document a member of one of `names` is defined (under any schema's `properties`). */
function membersNamed(doc: Doc, names: ReadonlySet<string>): string[] {
  const found: string[] = [];
  const walk = (node: unknown, at: string[]) => {
    if (!node || typeof node !== "object") return;
    for (const [key, child] of Object.entries(node)) {
      if (at.at(-1) === "properties" && names.has(key)) found.push(pointer(...at, key));
      walk(child, [...at, key]);
    }
  };
  walk(doc, []);
  return found;
}

/** The parameters named `names`, wherever an operation takes them. */
const parametersNamed = (doc: Doc, names: ReadonlySet<string>) =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).flatMap(([method, op]) =>
      ((op.parameters ?? []) as { name?: string }[]).flatMap((p, i) =>
        p.name && names.has(p.name) ? [pointer("paths", path, method, "parameters", String(i))] : [],
      ),
    ),
  );

/**
 * Members people write in their own words: what they are called, what they say, how they label or
 * file things. Any character may be in them (bounded by maxLength); no format or pattern is true of them.
 */
const FREE_TEXT = new Set([
  "name",
  "policy_name",
  "summary",
  "remediation",
  "vendor",
  "product",
  "version",
  "introduced",
  "fixed",
  "note",
  "revision_note",
  "credit_name",
  "title",
  "description",
  "short_description",
  "body",
  "point_of_contact",
  "tags",
  "font_heading",
  "font_body",
  "google_fonts",
  "organization_name",
  "brief_name",
  "listable_name",
  "filename",
  "reference",
  // A report's evidence and AI-use disclosure, and a paused brief's message to reporters: prose, as typed.
  "steps_to_reproduce",
  "proof_of_concept",
  "affected_version",
  "expected_result",
  "actual_result",
  "impact",
  "tools",
  "intake_paused_message",
  // Why two reports look alike, in words ("same endpoint /search?q").
  "reasons",
]);

/**
 * What the OWASP API Security ruleset reports that is so on purpose, each with why: turned off for
 * exactly those places (Spectral overrides), so the same finding anywhere else still counts.
 */
export const OWASP_WAIVERS: { rules: string[]; where: (doc: Doc) => string[]; reason: string }[] = [
  {
    rules: ["owasp:api2:2023-read-restricted", "owasp:api2:2023-write-restricted", "owasp:api8:2023-define-error-responses-401"],
    where: (doc) => publicOperations(doc).map(({ path, method }) => pointer("paths", path, method)),
    reason:
      "Public by design: the index, a published brief, a public directory and a report's submission need no key, so they have no security scheme and never answer 401.",
  },
  {
    rules: ["owasp:api8:2023-define-cors-origin"],
    where: (doc) =>
      Object.keys(doc.paths)
        .filter((path) => !path.startsWith("/v1/p/") && path !== "/" && path !== "/v1")
        .map((path) => pointer("paths", path)),
    reason:
      "By design, the keyed routes send no CORS headers: an API key belongs on a server, so no web page may read their answers (Access-Control-Allow-Origin: null would admit sandboxed documents instead).",
  },
  {
    rules: ["owasp:api8:2023-define-cors-origin"],
    where: () => [pointer("components", "headers")],
    reason: "The rule reads the document's map of reusable header definitions as if it were a response's headers.",
  },
  {
    rules: ["owasp:api4:2023-string-limit", "owasp:api4:2023-string-restricted"],
    where: () => ["ClientRequestId", "IfNoneMatch"].map((name) => pointer("components", "parameters", name, "schema")),
    reason:
      "Any value is taken on purpose: a well-formed X-Request-Id is echoed and any other ignored, never refused; If-None-Match is compared with the ETag, never refused.",
  },
  {
    rules: ["owasp:api4:2023-string-restricted"],
    where: (doc) => [...membersNamed(doc, FREE_TEXT), ...parametersNamed(doc, new Set(["q[search]", "filename"]))],
    reason:
      "Free text by design: names, titles, descriptions, summaries, remediations, revision notes, comments, tags, fonts, file names, an authority's reference for a filing, and a product's vendor, name and versions (each vendor numbers its own way) are what people write, in any script and with any punctuation, and a search takes what they type; each is bounded by its maxLength. What the API takes of them as one line carries the one-line pattern (no control character, line break or bidi override); the rest (multi-line text, and what the API answers) no pattern would be true of.",
  },
  {
    rules: ["owasp:api4:2023-string-restricted"],
    where: (doc) => membersNamed(doc, new Set(["value"])).filter((p) => /Asset|_assets/.test(p)),
    reason:
      "An asset's value takes the form of its kind (a hostname, a wildcard domain, a URL, an IP range, an app's id in a store, free text for other), each checked by kind when written; one pattern for all of them would say nothing.",
  },
  {
    rules: ["owasp:api4:2023-string-restricted"],
    where: (doc) => [
      ...membersNamed(
        doc,
        new Set(["detail", "parameter", "error", "request_body", "subject", "last_error", "failure_reason", "user_agent"]),
      ),
      ...membersNamed(doc, new Set(["label", "value"])).filter((p) => /RegulatoryReportDraft/.test(p)),
      pointer("paths", "/", "get", "responses", "200", "content", "text/html"),
      pointer("paths", "/v1/vulns/{id}/attachments/{attachment_id}/content", "get", "responses", "200", "headers", "Content-Disposition"),
    ],
    reason:
      "Text the API reports rather than takes: an error's explanation, a query parameter's name as the client sent it, a webhook receiver's failure and the exact body sent to it, the User-Agent a client sent (the audit log keeps it as sent), an e-mail's subject and why it failed or waits, why a custom domain's lookup proved nothing, the start page's HTML, a download's file name, a regulatory draft's labels and the values it filled from the vuln.",
  },
  {
    rules: ["owasp:api3:2023-no-additionalProperties", "owasp:api3:2023-constrained-additionalProperties"],
    where: () =>
      ["csaf", "osv", "cve"].map((f) =>
        pointer("paths", `/v1/p/advisories/{id}/${f}`, "get", "responses", "200", "content", "application/json", "schema"),
      ),
    reason:
      "A CSAF 2.0, OSV or CVE JSON 5.1 document: its schema is its standard's own (OASIS, the OSV project, the CVE Program), to which the tests hold every rendering with those schemas and the BSI CSAF validator; a copy here would be a second, weaker one.",
  },
  {
    rules: ["owasp:api8:2023-no-server-http"],
    where: (doc) =>
      (doc.servers ?? []).flatMap((s, i) =>
        /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])[:/]/.test(`${s.url}/`) ? [pointer("servers", String(i))] : [],
      ),
    reason:
      "npm run dev serves plain HTTP on the loopback address, and the document names the origin it was served from; deployed, that is https.",
  },
];

/** The OWASP API Security ruleset (@stoplight/spectral-owasp-ruleset), every rule, with OWASP_WAIVERS as its overrides. */
export async function owaspFindings(text: string): Promise<Finding[]> {
  const { Spectral, Document, Ruleset } = spectralCore as unknown as {
    Spectral: typeof spectralCore.Spectral;
    Document: typeof spectralCore.Document;
    Ruleset: new (definition: unknown, context: { source: string }) => unknown;
  };
  const doc = JSON.parse(text) as Doc;
  const overrides = OWASP_WAIVERS.flatMap((w) =>
    w.where(doc).map((where) => ({ files: [`openapi.json${where}`], rules: Object.fromEntries(w.rules.map((r) => [r, "off"])) })),
  );
  const owaspRuleset = (owasp as unknown as { default?: unknown }).default ?? owasp;
  const spectral = new Spectral();
  // Overrides name files relative to the ruleset's own place: this folder, where the document is said to be.
  spectral.setRuleset(
    new Ruleset({ extends: [[owaspRuleset, "all"]], overrides }, { source: path.join(import.meta.dirname, "owasp.ruleset") }) as never,
  );
  const diagnostics = await spectral.run(new Document(text, spectralParsers.Json, path.join(import.meta.dirname, "openapi.json")));
  return spectralFindingsOf(diagnostics);
}
