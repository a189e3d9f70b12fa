import { readFileSync } from "node:fs";
import path from "node:path";
import * as mandatoryTests from "@secvisogram/csaf-validator-lib/mandatoryTests.js";
import * as schemaTests from "@secvisogram/csaf-validator-lib/schemaTests.js";
import validateStrict from "@secvisogram/csaf-validator-lib/validateStrict.js";
import AjvDraft07 from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import csafSchema from "@secvisogram/csaf-validator-lib/lib/schemaTests/csaf_2_0/schema.js";
import { XMLParser, XMLValidator } from "fast-xml-parser";

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

let provider: ((d: unknown) => string[]) | undefined;
/**
 * A provider-metadata.json against OASIS's schema. Its publisher refers to the CSAF schema's, under a
 * pointer that does not resolve as published (.../document/publisher for .../document/properties/publisher):
 * the CSAF schema's own publisher (as the BSI validator bundles it) is put in its place.
 */
export function providerMetadataProblems(document: unknown): string[] {
  if (!provider) {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const s = schema("csaf-2.0-provider-metadata.schema.json");
    s.properties.publisher = { ...csafSchema.properties.document.properties.publisher, title: "Publisher" };
    const validate = ajv.compile(s);
    provider = (d) => (validate(d) ? [] : errorsOf(validate));
  }
  return provider(document);
}

let rolie: ((d: unknown) => string[]) | undefined;
export function rolieFeedProblems(document: unknown): string[] {
  if (!rolie) {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(schema("csaf-2.0-rolie-feed.schema.json"));
    rolie = (d) => (validate(d) ? [] : errorsOf(validate));
  }
  return rolie(document);
}

/** An Atom feed read by an XML parser: its well-formedness, then the feed as data. */
export function parseAtom(text: string): { problems: string[]; feed: any } {
  const valid = XMLValidator.validate(text);
  if (valid !== true) return { problems: [`${valid.err.code}: ${valid.err.msg} (line ${valid.err.line})`], feed: null };
  const parsed = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === "entry" || name === "link" }).parse(text);
  return { problems: parsed.feed?.["@_xmlns"] === "http://www.w3.org/2005/Atom" ? [] : ["not an Atom feed"], feed: parsed.feed };
}
