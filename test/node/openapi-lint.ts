import { createConfig, lintFromString } from "@redocly/openapi-core";
import spectralCore from "@stoplight/spectral-core";
import spectralParsers from "@stoplight/spectral-parsers";
import { oas } from "@stoplight/spectral-rulesets";

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

/** Spectral's `spectral:oas` ruleset: its default rules, as `extends: spectral:oas` runs them; every diagnostic (errors, warnings, information and hints). */
export async function spectralFindings(text: string): Promise<Finding[]> {
  const { Spectral, Document } = spectralCore;
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [oas as never] } as never);
  const diagnostics = await spectral.run(new Document(text, spectralParsers.Json, "openapi.json"));
  const severities = ["error", "warn", "info", "hint"];
  return diagnostics.map((d) => ({
    linter: "spectral",
    rule: String(d.code),
    severity: severities[d.severity] ?? String(d.severity),
    message: d.message,
    where: d.path.join("."),
  }));
}
