import { readFileSync } from "node:fs";
import path from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/**
 * The JSON:API 1.1 response schema (json-api/json-api _schemas/1.1/schema.json at 4ee1c64), compiled
 * with the three adjustments it needs: Ajv's strict mode off (required inside anyOf without
 * properties is valid JSON Schema); links checked as URI-references, which is what JSON:API 1.1
 * defines (a relative link is conformant); and the draft-07 `dependencies` (included requires data)
 * spelled as 2020-12's `dependentRequired`, without which the rule would be silently skipped.
 * Ajv compiles with `new Function`, so this runs in Node, not inside the Worker.
 */
export function jsonApiValidator() {
  const text = readFileSync(path.join(import.meta.dirname, "jsonapi-1.1.schema.json"), "utf8").replaceAll(
    '"format": "uri"',
    '"format": "uri-reference"',
  );
  const schema = JSON.parse(text);
  schema.dependentRequired = schema.dependencies;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);
  return (document: unknown) => (validate(document) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));
}
