import { readFileSync } from "node:fs";
import path from "node:path";
import * as mandatoryTests from "@secvisogram/csaf-validator-lib/mandatoryTests.js";
import * as schemaTests from "@secvisogram/csaf-validator-lib/schemaTests.js";
import validateStrict from "@secvisogram/csaf-validator-lib/validateStrict.js";
import AjvDraft07 from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

// The independent validators of what the platform publishes about advisories: the BSI's CSAF
// validator (strict schema and every mandatory test), the OSV project's JSON Schema and the CVE
// Program's CNA container schema (test/node/schemas, with their sources). Each answers the problems it
// finds; none is empty for a broken document (the tests show it first). Ajv compiles with new
// Function, so these run in Node.

const schema = (name: string) => JSON.parse(readFileSync(path.join(import.meta.dirname, "schemas", name), "utf8"));
const errorsOf = (validate: { errors?: { instancePath: string; message?: string }[] | null }) =>
  (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);

export async function csafProblems(document: unknown): Promise<string[]> {
  const tests = [schemaTests.csaf_2_0_strict!, ...Object.values(mandatoryTests)];
  const result = await validateStrict(tests, document);
  return result.tests.flatMap((t) => t.errors.map((e) => `${t.name} ${e.instancePath || "/"} ${e.message}`));
}

let osv: ((d: unknown) => string[]) | undefined;
export function osvProblems(document: unknown): string[] {
  if (!osv) {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(schema("osv-1.x.schema.json"));
    osv = (d) => (validate(d) ? [] : errorsOf(validate));
  }
  return osv(document);
}

let cve: ((d: unknown) => string[]) | undefined;
export function cveProblems(document: unknown): string[] {
  if (!cve) {
    const ajv = new (AjvDraft07 as unknown as { default: typeof AjvDraft07 }).default({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(schema("cve-5-cna-published-container.schema.json"), "cve");
    const validate = ajv.getSchema("cve#/definitions/cnaPublishedContainer")!;
    cve = (d) => (validate(d) ? [] : errorsOf(validate));
  }
  return cve(document);
}
