import { RECORDS } from "../helpers/fixture";
import { resolve, type Components, type Schema } from "./schema";

export interface QueryParam {
  name: string;
  schema: Schema;
}

/** One operation of the served document, with what the fuzzer needs to aim at it and to judge its answers. */
export interface Operation {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** The path as the document writes it, e.g. /v1/webhooks/{id}/deliveries/{delivery_id}. */
  template: string;
  /** Path parameters in order, with the record type each names (or "shortcode"/"slug" on public routes). */
  pathParams: { name: string; type: string }[];
  query: QueryParam[];
  body?: { schema: Schema; mediaTypes: string[] };
  /** Takes a body of another media type than JSON (an upload): only junk is sent to it. */
  upload: boolean;
  requiredQuery: boolean;
  /** Documented statuses and the media types each may answer in. */
  responses: Map<number, string[]>;
  /** The documented body of each success status that has one. */
  successSchemas: Map<number, Schema>;
  /** The media type its errors are documented in. */
  errorMediaType: string;
  /** The `type` of the resource it returns, which a request document must repeat. */
  resourceType: string;
  public: boolean;
  /** Takes the reporter's vdpr_ token (the /v1/p/report routes), never an API key. */
  reporter: boolean;
  label: string;
}

// The record type a path segment before {param} names: the document's collection names.
const COLLECTIONS: Record<string, string> = Object.fromEntries(RECORDS.map((r) => [r.collection, r.type]));

export interface OpenApiDocument {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Components; parameters?: Record<string, any> };
}

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of ["get", "post", "patch", "delete"] as const) {
      const op = item[method];
      if (!op) continue;
      const params = ((op.parameters ?? []) as any[]).map((p) => (p.$ref ? doc.components.parameters![p.$ref.split("/").pop()] : p));
      const segments = template.split("/");
      const pathParams = params
        .filter((p) => p.in === "path")
        .map((p) => {
          const before = segments[segments.indexOf(`{${p.name}}`) - 1]!;
          const isPublic = template.startsWith("/v1/p/");
          // A public path names its record by a code of its own (a shortcode, a slug), or by the id of its collection's record.
          const type = isPublic && p.name !== "id" ? (p.name as string) : (COLLECTIONS[before] ?? before);
          return { name: p.name as string, type };
        });
      const responses = new Map<number, string[]>();
      const successSchemas = new Map<number, Schema>();
      for (const [status, r] of Object.entries(op.responses as Record<string, { content?: Record<string, { schema?: Schema }> }>)) {
        responses.set(Number(status), Object.keys(r.content ?? {}));
        const schema = Object.values(r.content ?? {})[0]?.schema;
        if (Number(status) < 400 && schema) successSchemas.set(Number(status), schema);
      }
      // Only JSON bodies are generated from their schema; an upload (another media type) gets junk only.
      const content = op.requestBody?.content as Record<string, { schema: Schema }> | undefined;
      const jsonType = Object.keys(content ?? {}).find((t) => /^application\/(vnd\.api\+)?json$/.test(t));
      const first = jsonType ? content![jsonType] : undefined;
      ops.push({
        method: method.toUpperCase() as Operation["method"],
        template,
        pathParams,
        query: params.filter((p) => p.in === "query").map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        body: first ? { schema: first.schema, mediaTypes: Object.keys(content!).filter((t) => /json$/.test(t)) } : undefined,
        upload: content !== undefined && !jsonType,
        requiredQuery: params.some((p) => p.in === "query" && p.required),
        responses,
        successSchemas,
        errorMediaType: responses.get(400)?.[0] ?? "application/vnd.api+json",
        resourceType:
          resourceTypeOf(op, doc.components.schemas) ?? COLLECTIONS[segments.filter((s) => !s.startsWith("{")).at(-1)!] ?? "unknown",
        // An operation that overrides the document's bearer requirement with none needs no key.
        public: Array.isArray(op.security) && op.security.length === 0,
        reporter: Array.isArray(op.security) && op.security.some((r: Record<string, unknown>) => "reporterToken" in r),
        label: `${method.toUpperCase()} ${template}`,
      });
    }
  }
  return ops;
}

/** The `type` literal of the resource in the operation's success document. */
function resourceTypeOf(op: any, components: Components): string | undefined {
  for (const status of ["201", "200", "202"]) {
    const schema = Object.values((op.responses[status]?.content ?? {}) as Record<string, { schema: Schema }>)[0]?.schema;
    const data = schema && resolve(schema, components).properties?.data;
    if (!data) continue;
    const resolved = resolve(data, components);
    const resource = resolve(resolved.type === "array" ? (resolved.items ?? {}) : resolved, components);
    const type = resource.properties?.type?.enum?.[0];
    if (typeof type === "string") return type;
  }
  return undefined;
}
