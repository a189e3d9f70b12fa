import fc from "fast-check";
import { SINGLE_LINE_PATTERN } from "../../src/lib/text";

/** The part of OpenAPI 3.0's schema object the served document uses. */
export interface Schema {
  $ref?: string;
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  nullable?: boolean;
  example?: unknown;
}

export type Components = Record<string, Schema>;

/**
 * A schema's pattern as a RegExp. The document may carry a JavaScript flag after a slash ("^a$/i"),
 * which no regular expression engine reads so; the test of the document itself reports that, and here
 * the flag is applied, so the fuzzer still makes what the server takes.
 */
export function patternOf(pattern: string): RegExp {
  const flagged = /^(.*)\/([a-z]+)$/.exec(pattern);
  return flagged ? new RegExp(flagged[1]!, flagged[2]) : new RegExp(pattern);
}

export function resolve(schema: Schema, components: Components): Schema {
  let s = schema;
  for (let hops = 0; s.$ref && hops < 20; hops++) {
    const target = components[s.$ref.split("/").pop()!];
    if (!target) throw new Error(`unresolvable ${s.$ref}`);
    s = target;
  }
  return s;
}

/** The schema of the member at `path` (object members and array items), or undefined where the schema says nothing. */
export function schemaAt(schema: Schema, components: Components, path: (string | number)[]): Schema | undefined {
  let s: Schema | undefined = resolve(schema, components);
  for (const key of path) {
    if (!s) return undefined;
    const next: Schema | undefined = typeof key === "number" ? s.items : s.properties?.[key];
    s = next && resolve(next, components);
  }
  return s;
}

/** What the generator needs to know beyond the schema: the ids that exist, and the operation's own type. */
export interface Ids {
  /** The `data.type` the operation takes. */
  resourceType: string;
  /** The id named in the path, which an update's `data.id` repeats. */
  pathId?: string;
  /** Placeholders of existing records of a type (may be empty). */
  of(type: string): string[];
}

// Values that pass the schema and usually the services' own checks, so valid instances reach them.
const URIS = [
  "https://example.com/",
  "https://hooks.example.com/vdp",
  "https://example.org/.well-known/security.txt",
  "https://example.com:8443/x",
  "https://example.com:6379/",
  "http://example.com/",
];
const EMAILS = ["reporter@example.com", "a.b+c@example.org"];
const HOSTNAMES = ["example.com", "sub.example.org", "xn--bcher-kva.example"];
const label = fc.stringMatching(/^[a-z][a-z0-9]{2,10}$/);
const HINTS: Record<string, (ids: Ids) => fc.Arbitrary<string>> = {
  // Directory items name a policy or a brief by an attribute rather than a relationship.
  listable_id: (ids) => idFrom([...ids.of("policy"), ...ids.of("brief")]),
  value: () =>
    fc.oneof(
      label.map((l) => `${l}.example.com`),
      label.map((l) => `https://${l}.example.com/app`),
      fc.constantFrom("10.0.0.1", "10.0.0.0/8", "*.example.com"),
    ),
};

const idFrom = (ids: string[]) =>
  ids.length ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ids) }, { weight: 1, arbitrary: fc.uuid() }) : fc.uuid();

/** A valid instance of `schema` (with the ids of the fixture where the schema names a record). */
export function arbitraryOf(schema: Schema, components: Components, ids: Ids, path: (string | number)[] = []): fc.Arbitrary<unknown> {
  const s = resolve(schema, components);
  const base = baseArbitrary(s, components, ids, path);
  return s.nullable ? fc.oneof({ weight: 6, arbitrary: base }, { weight: 1, arbitrary: fc.constant(null) }) : base;
}

function baseArbitrary(s: Schema, components: Components, ids: Ids, path: (string | number)[]): fc.Arbitrary<unknown> {
  const at = path.join(".");
  if (/^data(\.\d+)?\.type$/.test(at)) return fc.constant(ids.resourceType);
  if (at === "data.id") return ids.pathId ? fc.constant(ids.pathId) : idFrom(ids.of(ids.resourceType));
  if (/^data\.\d+\.id$/.test(at)) return idFrom(ids.of(ids.resourceType));
  if (s.enum) return fc.constantFrom(...s.enum.filter((v) => v !== null));
  switch (s.type) {
    case "object": {
      const props = s.properties ?? {};
      // A resource linkage: its id is one of the records of its type.
      const linked = props.type?.enum?.length === 1 && props.id ? String(props.type.enum[0]) : undefined;
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, prop] of Object.entries(props)) {
        model[name] = linked && name === "id" ? idFrom(ids.of(linked)) : arbitraryOf(prop, components, ids, [...path, name]);
      }
      return fc.record(model, { requiredKeys: s.required ?? [] });
    }
    case "array":
      return fc.array(arbitraryOf(s.items ?? {}, components, ids, [...path, 0]), {
        minLength: s.minItems ?? 0,
        maxLength: Math.min(s.maxItems ?? 3, 3),
      });
    case "integer":
      return fc.integer({ min: s.minimum ?? -10, max: s.maximum ?? 1000 });
    case "number":
      return fc.double({ min: s.minimum ?? -1000, max: s.maximum ?? 1000, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "string":
      return stringArbitrary(s, ids, String(path.at(-1)));
    default:
      return fc.constant("x");
  }
}

function stringArbitrary(s: Schema, ids: Ids, name: string): fc.Arbitrary<string> {
  const sized = fc.string({ minLength: s.minLength ?? 0, maxLength: Math.max(s.minLength ?? 0, Math.min(s.maxLength ?? 40, 40)) });
  // One line of text (the rule's pattern): what a person types, printable ASCII.
  if (s.pattern === SINGLE_LINE_PATTERN.source) return HINTS[name]?.(ids) ?? sized;
  // A format says more than a pattern beside it (a URL's grammar): its values first.
  if (s.pattern && !(s.format && FORMATTED.has(s.format))) {
    // Without flags: fast-check cannot generate for them, and what matches without also matches with.
    const bounded = (v: string) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? Number.POSITIVE_INFINITY);
    return fc.stringMatching(new RegExp(patternOf(s.pattern).source)).filter(bounded);
  }
  switch (s.format) {
    case "uuid":
      // A bare uuid names no record here: records are named only where the schema says which type.
      return HINTS[name]?.(ids) ?? fc.oneof(fc.uuid(), fc.constant("00000000-0000-0000-0000-000000000000"));
    case "uri":
      // Those the member's own pattern takes (an advisory's references are https only).
      return fc.constantFrom(...URIS.filter((u) => !s.pattern || patternOf(s.pattern).test(u)));
    case "email":
      return fc.constantFrom(...EMAILS);
    case "hostname":
      return fc.oneof(
        fc.constantFrom(...HOSTNAMES),
        label.map((l) => `${l}.example.net`),
      );
    case "date-time":
      return fc
        .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true })
        .map((d) => d.toISOString());
  }
  if (HINTS[name]) return HINTS[name](ids);
  return sized;
}
const FORMATTED = new Set(["uuid", "uri", "email", "hostname", "date-time"]);

/**
 * Whether `value` is an instance of `schema`, by the document's own words. Formats are not judged (the
 * services may be stricter than a format name), so "does not conform" means the request must fail.
 */
export function conforms(schema: Schema, components: Components, value: unknown): boolean {
  return mismatch(schema, components, value) === undefined;
}

/** The JSON Pointer of the first place where `value` departs from `schema`, or undefined. */
export function mismatch(schema: Schema, components: Components, value: unknown, at = ""): string | undefined {
  const s = resolve(schema, components);
  if (value === null) return s.nullable === true || (s.enum?.includes(null) ?? false) ? undefined : at || "/";
  if (s.enum && !s.enum.includes(value)) return at || "/";
  const fail = (ok: boolean) => (ok ? undefined : at || "/");
  switch (s.type) {
    case "object": {
      if (typeof value !== "object" || Array.isArray(value)) return at || "/";
      const obj = value as Record<string, unknown>;
      const props = s.properties ?? {};
      const missing = (s.required ?? []).find((name) => !Object.hasOwn(obj, name));
      if (missing !== undefined) return `${at}/${missing}`;
      for (const [name, v] of Object.entries(obj)) {
        const where = Object.hasOwn(props, name)
          ? mismatch(props[name]!, components, v, `${at}/${name}`)
          : s.additionalProperties === false
            ? `${at}/${name}`
            : undefined;
        if (where !== undefined) return where;
      }
      return undefined;
    }
    case "array": {
      if (!Array.isArray(value) || value.length < (s.minItems ?? 0) || value.length > (s.maxItems ?? Infinity)) return at || "/";
      for (let i = 0; i < value.length; i++) {
        const where = mismatch(s.items ?? {}, components, value[i], `${at}/${i}`);
        if (where !== undefined) return where;
      }
      return undefined;
    }
    case "integer":
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value) || (s.type === "integer" && !Number.isInteger(value))) return at || "/";
      return fail(value >= (s.minimum ?? -Infinity) && value <= (s.maximum ?? Infinity));
    case "boolean":
      return fail(typeof value === "boolean");
    case "string":
      if (typeof value !== "string" || value.length < (s.minLength ?? 0) || value.length > (s.maxLength ?? Infinity)) return at || "/";
      return fail(!s.pattern || patternOf(s.pattern).test(value));
    default:
      return undefined;
  }
}
