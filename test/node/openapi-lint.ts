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
