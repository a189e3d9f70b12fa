import { z } from "@hono/zod-openapi";
import type { Context } from "hono";

// Sparse fieldsets, JSON:API's own way to ask for less: `fields[vuln]=title,severity` keeps only those
// members (attributes and relationships) of every `vuln` in the answer, in `data` and in `included`.
// Each keyed read takes `fields[TYPE]` for the types its answer holds, read off its own response
// schema (createRouter adds them), so the route validates them like any parameter and the OpenAPI
// document lists them with the exact members each type has.

type Shape = Record<string, z.ZodType>;
const shapeOf = (schema: unknown): Shape | undefined => (schema instanceof z.ZodObject ? (schema.shape as Shape) : undefined);

/** The resource objects a document schema holds in `data` and `included`, as zod object schemas. */
function resourceSchemas(document: z.ZodType): Shape[] {
  const top = shapeOf(document);
  if (!top) return [];
  const found: unknown[] = [];
  const data = top.data;
  found.push(data instanceof z.ZodArray ? data.element : data);
  const included = top.included;
  if (included instanceof z.ZodArray) {
    const item = included.element;
    found.push(...(item instanceof z.ZodUnion ? item.options : [item]));
  }
  return found.map(shapeOf).filter((s): s is Shape => s !== undefined && s.type instanceof z.ZodLiteral);
}

/** Each type an answer holds and its members (attributes, then relationships). */
export function answerMembers(document: z.ZodType): Map<string, string[]> {
  const members = new Map<string, string[]>();
  for (const shape of resourceSchemas(document)) {
    const type = String((shape.type as z.ZodLiteral).value);
    const names = [...Object.keys(shapeOf(shape.attributes) ?? {}), ...Object.keys(shapeOf(shape.relationships) ?? {})];
    members.set(type, [...new Set([...(members.get(type) ?? []), ...names])]);
  }
  return members;
}

/** The `fields[TYPE]` query parameters of a read whose answer holds these types. */
/** The longest `fields[TYPE]` taken: room for every member of any type, named once. */
const FIELDSET_LENGTH = 1024;

export function fieldsetParameters(members: Map<string, string[]>): Shape {
  const params: Shape = {};
  for (const [type, names] of members) {
    const name = `fields[${type}]`;
    const one = `(${names.join("|")})`;
    params[name] = z
      .string()
      .max(FIELDSET_LENGTH, `must be at most ${FIELDSET_LENGTH} characters`)
      .regex(new RegExp(`^(${one}(,${one})*)?$`), `must be ${type} members separated by commas (no spaces), from: ${names.join(", ")}`)
      .optional()
      .openapi({
        param: {
          name,
          in: "query",
          description:
            `Sparse fieldset: only these members of each ${type} in the answer (attributes and relationships), e.g. ` +
            `${names.slice(0, 2).join(",")}; empty keeps none.`,
        },
      });
  }
  return params;
}

type Resource = { type: string; attributes?: Record<string, unknown>; relationships?: Record<string, unknown> };

const pick = (members: Record<string, unknown> | undefined, keep: Set<string>) =>
  members && Object.fromEntries(Object.entries(members).filter(([name]) => keep.has(name)));

function trimmed(value: unknown, sets: Map<string, Set<string>>): unknown {
  if (Array.isArray(value)) return value.map((v) => trimmed(v, sets));
  const r = value as Resource | null;
  const keep = r && typeof r === "object" && typeof r.type === "string" ? sets.get(r.type) : undefined;
  if (!keep) return value;
  return { ...r, attributes: pick(r!.attributes, keep), relationships: pick(r!.relationships, keep) };
}

/**
 * The document with each resource of a type the request named in `fields[TYPE]` cut down to the
 * members asked for. The route's query schema has checked the parameters before its handler ran.
 */
export function withFieldsets<T>(c: Context, document: T): T {
  if (c.req.method !== "GET" && c.req.method !== "HEAD") return document;
  if (!document || typeof document !== "object" || !("data" in document)) return document;
  const sets = new Map<string, Set<string>>();
  for (const [name, value] of Object.entries(c.req.query())) {
    const type = /^fields\[([a-z_]+)\]$/.exec(name)?.[1];
    if (type) sets.set(type, new Set(value === "" ? [] : value.split(",")));
  }
  if (sets.size === 0) return document;
  const d = document as { data: unknown; included?: unknown[] };
  return { ...d, data: trimmed(d.data, sets), ...(d.included ? { included: trimmed(d.included, sets) } : {}) } as T;
}
