import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { get } from "../helpers/api";
import type { FuzzCase } from "./cases";
import { send, type KeyKind } from "./harness";
import { operationsOf, type OpenApiDocument, type Operation } from "./operations";
import { placeholder, Pool } from "./pool";
import { arbitraryOf, conforms, patternOf, schemaAt, type Schema } from "./schema";

// The random fuzzer puts line breaks, control characters and stray characters into members now and
// then; this pass does it to every member whose text the document constrains with a pattern (a
// single-line member, a web address), in every operation that writes one: the value a valid request
// holds, with a character its pattern refuses put inside, is refused with the member named, never taken.

const SEED = 20261128;
// Each breaks every pattern of the document that takes free text: one line, and RFC 3986's grammar.
const INSIDE = ["\n", "\r\n", "\t", "\u0000", "\u0085", "\u2028", "\u202e", " ", '"', "\\"];

let doc: OpenApiDocument;
let ops: Operation[];
beforeAll(async () => {
  doc = (await get("/v1/openapi.json")).body;
  ops = operationsOf(doc).filter((op) => op.body && !op.upload && !op.reporter);
});

type Path = (string | number)[];

/** The string members of `value` under data.attributes whose schema gives a pattern, with their paths. */
function constrainedMembers(value: unknown, schema: Schema, at: Path = []): { path: Path; value: string }[] {
  if (typeof value === "string") {
    const s = schemaAt(schema, doc.components.schemas, at);
    return at.includes("attributes") && s?.pattern ? [{ path: at, value }] : [];
  }
  if (!value || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => constrainedMembers(v, schema, [...at, Array.isArray(value) ? Number(k) : k]));
}

function withValue(root: unknown, path: Path, value: string): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = value;
  return copy;
}

describe("every member whose text the document constrains", () => {
  it("refuses, at the member, a character its pattern refuses, in every operation that writes it", async () => {
    const pool = await Pool.create();
    const problems: string[] = [];
    let checked = 0;
    for (const op of ops) {
      const schema = op.body!.schema;
      const ids = {
        resourceType: op.resourceType,
        pathId: op.pathParams.length ? placeholder("A", op.pathParams.at(-1)!.type) : undefined,
        of: (type: string) => [placeholder("A", type)],
      };
      // Valid instances until each constrained member has been seen.
      const seen = new Map<string, { valid: unknown; path: Path; value: string }>();
      for (const valid of fc.sample(arbitraryOf(schema, doc.components.schemas, ids), { numRuns: 40, seed: SEED }))
        for (const m of constrainedMembers(valid, schema)) if (!seen.has(m.path.join("/"))) seen.set(m.path.join("/"), { valid, ...m });
      for (const [where, { valid, path, value }] of seen) {
        const pattern = patternOf(schemaAt(schema, doc.components.schemas, path)!.pattern!);
        const char = INSIDE.find((c) => !pattern.test(`${value.slice(0, 1)}${c}${value.slice(1)}`));
        if (!char) continue;
        const hostile = withValue(valid, path, `${value.slice(0, 1)}${char}${value.slice(1)}`);
        expect(conforms(schema, doc.components.schemas, hostile)).toBe(false);
        const c: FuzzCase = {
          op,
          method: op.method,
          pathValues: op.pathParams.map((p) => placeholder("A", p.type)),
          query: "",
          headers: {},
          body: { text: JSON.stringify(hostile), note: `${JSON.stringify(char)} inside /${where}` },
          mustFail: ["does not conform to the request schema"],
          focus: "body",
        };
        for (const key of ["operator", "org"] as KeyKind[]) {
          const answer = await send(c, key, pool);
          checked++;
          const pointers =
            answer.status === 422
              ? (JSON.parse(answer.text).errors as { source?: { pointer?: string } }[]).map((e) => e.source?.pointer)
              : [];
          if (answer.status < 400) problems.push(`${op.label} [${key}] took ${c.body!.note}: ${answer.status}`);
          else if (answer.status === 422 && !pointers.some((p) => p !== undefined && `/${where}`.startsWith(p)))
            problems.push(`${op.label} [${key}] refused ${c.body!.note} elsewhere: ${pointers.join(", ")}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(problems).toEqual([]);
  }, 300_000);
});
