import { html, raw } from "hono/html";
import { document, type Html } from "./layout";
import { inline, markdown, scrolling } from "./markdown";

// The API reference as one page the Worker renders from the OpenAPI document it serves: every
// operation by tag, its parameters, body and answers, then every schema once. No script, this
// origin's stylesheet only, like the other pages; the document stays the one source.

/** The part of an OpenAPI 3.0 document this page reads. */
export interface SchemaObject {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  nullable?: boolean;
  description?: string;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  items?: SchemaObject;
  additionalProperties?: boolean | SchemaObject;
  allOf?: SchemaObject[];
  anyOf?: SchemaObject[];
  oneOf?: SchemaObject[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  default?: unknown;
  example?: unknown;
}
interface Parameter {
  $ref?: string;
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: SchemaObject;
}
interface MediaTypes {
  content?: Record<string, { schema?: SchemaObject }>;
}
interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: MediaTypes & { required?: boolean };
  responses: Record<string, MediaTypes & { description?: string; headers?: Record<string, unknown> }>;
}
export interface ReferenceDocument {
  info: { title: string; version: string; description?: string };
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, SchemaObject>; parameters?: Record<string, Parameter> };
}

const METHODS = ["get", "post", "patch", "put", "delete"] as const;
const refName = (ref: string) => ref.split("/").pop()!;
const schemaLink = (name: string) => html`<a href="#schema-${name}"><code>${name}</code></a>`;
const tagId = (name: string) => `tag-${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;

/** What a schema's keywords constrain, in words: "string, uuid, at most 36 characters". */
function facts(s: SchemaObject): Html[] {
  const out: Html[] = [];
  if (s.$ref) return [schemaLink(refName(s.$ref))];
  const kind = s.type === "array" ? "list" : s.type;
  if (kind) out.push(html`${kind}`);
  if (s.format) out.push(html`${s.format}`);
  if (s.enum) out.push(html`one of ${s.enum.map((v, i) => html`${i ? ", " : ""}<code>${JSON.stringify(v)}</code>`)}`);
  if (s.minLength !== undefined && s.minLength > 0) out.push(html`at least ${counted(s.minLength, "character")}`);
  if (s.maxLength !== undefined) out.push(html`at most ${counted(s.maxLength, "character")}`);
  if (s.minimum !== undefined && s.maximum !== undefined) out.push(html`${s.minimum} to ${s.maximum.toLocaleString("en-US")}`);
  else if (s.minimum !== undefined) out.push(html`at least ${s.minimum}`);
  if (s.minItems) out.push(html`at least ${counted(s.minItems, "item")}`);
  if (s.maxItems !== undefined) out.push(html`at most ${counted(s.maxItems, "item")}`);
  if (s.pattern) out.push(html`matching <code>${s.pattern}</code>`);
  if (s.default !== undefined) out.push(html`default <code>${JSON.stringify(s.default)}</code>`);
  for (const [word, list] of [
    ["all of", s.allOf],
    ["one of", s.oneOf ?? s.anyOf],
  ] as const) {
    if (list)
      out.push(
        html`${word} ${list.map((x, i) => html`${i ? " | " : ""}${x.$ref ? schemaLink(refName(x.$ref)) : html`${x.type ?? "value"}`}`)}`,
      );
  }
  if (s.nullable) out.push(html`or null`);
  return out;
}

const counted = (n: number, word: string) => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
const joined = (parts: Html[]) => html`${parts.map((p, i) => html`${i ? ", " : ""}${p}`)}`;

/** A schema's members as a nested list, down to `depth` levels; named schemas are links. */
function members(s: SchemaObject, depth: number): Html | "" {
  if (s.$ref || depth <= 0) return "";
  const item = s.type === "array" && s.items && !s.items.$ref ? s.items : undefined;
  if (item) return members(item, depth);
  if (!s.properties) return "";
  const required = new Set(s.required ?? []);
  return html`<ul class="members">${Object.entries(s.properties).map(
    ([name, member]) =>
      html`<li><code>${name}</code> <span class="facts">${joined(facts(member))}${
        required.has(name) ? html`, <strong>required</strong>` : ""
      }${member.type === "array" && member.items ? html`, of ${joined(facts(member.items))}` : ""}</span>${
        member.description ? html`<span class="desc">${raw(inline(member.description))}</span>` : ""
      }${members(member, depth - 1)}</li>`,
  )}</ul>`;
}

function parameters(op: Operation, doc: ReferenceDocument): Html | "" {
  const list = (op.parameters ?? [])
    .map((p) => (p.$ref ? doc.components.parameters?.[refName(p.$ref)] : p))
    .filter((p): p is Parameter => !!p);
  if (!list.length) return "";
  // A list, not a table: each parameter's meaning is read whole at any width.
  return html`<h4>Parameters</h4>
<dl class="params">${list.map(
    (p) =>
      html`<dt><code>${p.name}</code> <span class="facts">in ${p.in}${p.schema ? html`, ${joined(facts(p.schema))}` : ""}</span>${
        p.required ? html`, <strong>required</strong>` : ""
      }</dt><dd>${p.description ? raw(inline(p.description)) : ""}</dd>`,
  )}</dl>`;
}

/** A body by media type; its members `depth` levels down (a request's in full, an answer's outline: its schemas are linked). */
function body(content: MediaTypes["content"], depth: number, schemas?: Record<string, SchemaObject>): Html | "" {
  const entries = Object.entries(content ?? {});
  if (!entries.length) return "";
  // Media types that share a schema are named together.
  const bySchema = new Map<string, { types: string[]; schema?: SchemaObject }>();
  for (const [type, { schema }] of entries) {
    const key = JSON.stringify(schema ?? null);
    const seen = bySchema.get(key);
    if (seen) seen.types.push(type);
    else bySchema.set(key, { types: [type], schema });
  }
  return html`${[...bySchema.values()].map(
    ({ types, schema }) =>
      html`<p class="media">${types.map((t, i) => html`${i ? ", " : ""}<code>${t}</code>`)}${
        schema ? html`: ${joined(facts(schema))}` : ""
      }</p>${
        // A request's body is shown whole where it is sent, its named schema opened in place.
        schema ? members((schema.$ref && schemas?.[refName(schema.$ref)]) || schema, depth) : ""
      }`,
  )}`;
}

function errors(statuses: [string, Operation["responses"][string]][], op: Operation): Html | "" {
  if (!statuses.length) return "";
  const types = new Set(statuses.flatMap(([, r]) => Object.keys(r.content ?? {})));
  return html`<p class="media">Errors answer an <a href="#schema-ErrorDocument"><code>ErrorDocument</code></a> (${joined(
    [...types].map((t) => html`<code>${t}</code>`),
  )}):</p>
${scrolling(
  `Errors of ${op.operationId}`,
  html`<table><thead><tr><th scope="col">Status</th><th scope="col">When</th></tr></thead><tbody>${statuses.map(
    ([status, r]) => html`<tr><td>${status}</td><td>${r.description ? raw(inline(r.description)) : ""}</td></tr>`,
  )}</tbody></table>`,
)}`;
}

function operation(path: string, method: string, op: Operation, doc: ReferenceDocument): Html {
  const all = Object.entries(op.responses).sort(([a], [b]) => a.localeCompare(b));
  const statuses = all.filter(([status]) => Number(status) < 400);
  return html`<article class="op" id="${op.operationId}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code class="path">${path}</code></h3>
${
  // The description usually begins with the summary (then says who may call): say it once.
  op.summary && !op.description?.startsWith(op.summary) ? html`<p class="summary">${op.summary}</p>` : ""
}
${op.description ? markdown(op.description, 5) : ""}
${parameters(op, doc)}
${
  op.requestBody
    ? html`<h4>Request body${op.requestBody.required ? "" : " (optional)"}</h4>${body(op.requestBody.content, 4, doc.components.schemas)}`
    : ""
}
<h4>Answers</h4>
<dl class="answers">${statuses.map(
    ([status, r]) =>
      html`<dt>${status}</dt><dd>${r.description ? raw(inline(r.description)) : ""}${body(r.content, 2)}${
        r.headers && Object.keys(r.headers).length
          ? html`<p class="headers">Headers: ${joined(Object.keys(r.headers).map((h) => html`<code>${h}</code>`))}</p>`
          : ""
      }</dd>`,
  )}</dl>
${errors(
  all.filter(([status]) => Number(status) >= 400),
  op,
)}
</article>`;
}

/** The whole reference page. */
export function referencePage(doc: ReferenceDocument): string {
  const byTag = new Map<string, { path: string; method: string; op: Operation }[]>();
  for (const tag of doc.tags ?? []) byTag.set(tag.name, []);
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? "Other";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push({ path, method, op });
    }
  }
  const described = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
  const count = [...byTag.values()].reduce((n, ops) => n + ops.length, 0);
  const schemas = Object.entries(doc.components.schemas ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return document(
    `${doc.info.title} reference`,
    html`<div class="reference">
<h1>${doc.info.title} <span class="muted">${doc.info.version}</span></h1>
<p><a href="/v1/openapi.json">The OpenAPI document</a> (to generate a client) · <a href="/docs/errors">The error codes</a>
· <a href="#schemas">The schemas</a></p>
${doc.info.description ? markdown(doc.info.description, 2) : ""}
<nav aria-label="Operations">
<h2>Operations</h2>
<details><summary>All ${count} operations, by topic</summary>
<ul class="toc">${[...byTag].map(
      ([tag, ops]) =>
        html`<li><a href="#${tagId(tag)}">${tag}</a><ul>${ops.map(
          ({ path, method, op }) =>
            html`<li><a href="#${op.operationId}"><span class="method ${method}">${method.toUpperCase()}</span> <code>${
              path
            }</code></a></li>`,
        )}</ul></li>`,
    )}</ul>
</details>
<ul class="tags">${[...byTag.keys()].map((tag) => html`<li><a href="#${tagId(tag)}">${tag}</a></li>`)}</ul>
</nav>
${[...byTag].map(
  ([tag, ops]) => html`<section id="${tagId(tag)}">
<h2>${tag}</h2>
${described.get(tag) ? html`<p>${raw(inline(described.get(tag)!))}</p>` : ""}
${ops.map(({ path, method, op }) => operation(path, method, op, doc))}
</section>`,
)}
<section id="schemas">
<h2>Schemas</h2>
${schemas.map(
  ([name, schema]) => html`<article class="schema" id="schema-${name}">
<h3><code>${name}</code></h3>
${schema.description ? html`<p>${raw(inline(schema.description))}</p>` : ""}
<p class="media">${joined(facts({ ...schema, description: undefined }))}</p>
${members(schema, 6)}
</article>`,
)}
</section>
</div>`,
    {
      heading: doc.info.title,
      description: `The reference of the ${doc.info.title}: every operation, its parameters, request and answers, and every schema.`,
      footer: html`This reference is rendered from <a href="/v1/openapi.json">the OpenAPI document</a> the API serves,
and says nothing it does not.`,
    },
  );
}
