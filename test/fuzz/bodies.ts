import fc from "fast-check";
import { arbitraryOf, conforms, type Components, type Ids, type Schema, schemaAt } from "./schema";

/** A request body as text with placeholders, plus what text cannot carry. */
export interface Body {
  text: string;
  /** Bytes spliced in at this character offset: bodies that are not UTF-8. */
  badBytes?: { at: number; bytes: number[] };
  /** A member name written twice (JSON.parse keeps the last one, so only the generator knows). */
  duplicate?: boolean;
  /** How the body was made from a valid instance. */
  note: string;
}

const MARK = "@@FUZZ@@";
const DUP = "@@DUP@@";
const UTF8 = "@@UTF8@@";
const MAX_BYTES = 1_100_000;

const WRONG = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  "",
  "x",
  " ",
  [],
  {},
  [null],
  { zzz: 1 },
  "\u0000",
  // What a single-line member refuses (its pattern in the document): line breaks, tabs, other control
  // characters, line and paragraph separators, bidi overrides; and web addresses RFC 3986 does not write.
  "line one\nline two",
  "a\r\nBcc: x@evil.example",
  "\tindented",
  "\u001b[31mred",
  "next\u0085line",
  "a\u2028b",
  "invoice\u202egpj.exe",
  "\u2066isolated",
  "https://acme.example/a b",
  'https://acme.example/"quoted"',
  "https://acme.example\\evil.example/",
  "https://bücher.example/",
  "'; DROP TABLE organizations; --",
  "😀é",
  2 ** 53 + 1,
];
const EXTRA_NAMES = [
  "zzz",
  "__proto__",
  "constructor",
  "toString",
  "id",
  "created_at",
  "secret",
  "organization_id",
  "claimed",
  "type",
  "",
  "\ud800",
  "a".repeat(300),
];
const RAW_LITERALS = [
  "1e999",
  "-0",
  "123456789012345678901234567890",
  '"\\ud800"',
  '"x\\udc00"',
  '"\\ud83d\\ude00"',
  '"\\u0000"',
  "NaN",
  "Infinity",
  "undefined",
  "'x'",
  "0x10",
  "01",
  ".5",
  "+1",
  "tru",
  '"a"  "b"',
];
const BAD_UTF8 = [
  [0xff],
  [0xfe],
  [0xc0, 0xaf],
  [0xc3, 0x28],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0x80],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
];
/**
 * Characters put inside a string member: a single-line member refuses the first ones (its pattern says
 * so), a web address all of them; a multi-line member takes them.
 */
const INSIDE = [
  "\n",
  "\r\n",
  "\t",
  "\u0000",
  "\u001b",
  "\u007f",
  "\u0085",
  "\u2028",
  "\u2029",
  "\u202e",
  "\u2067",
  " ",
  '"',
  "\\",
  "<",
  "é",
];
const SYNTAX = [
  (t: string) => t.slice(0, Math.floor(t.length / 2)),
  (t: string) => t.replace(/}$/, ",}"),
  (t: string) => `${t}x`,
  (t: string) => `${t}${t}`,
  (t: string) => `\uFEFF${t}`,
  (t: string) => ` \n${t}\n `,
  () => "",
  () => "null",
  () => "[]",
  () => "{}",
  () => "1",
  () => '"s"',
  () => "{",
];

type Path = (string | number)[];

function pathsOf(value: unknown, at: Path = [], out: { path: Path; value: unknown }[] = []) {
  out.push({ path: at, value });
  if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...at, Array.isArray(value) ? Number(k) : k], out);
  return out;
}

function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = value;
  return copy;
}

function deleteAt(root: unknown, path: Path): unknown {
  if (path.length === 0) return undefined;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  if (Array.isArray(node)) node.splice(Number(path.at(-1)), 1);
  else delete node[path.at(-1)!];
  return copy;
}

const withRaw = (root: unknown, path: Path, raw: string) => (JSON.stringify(setAt(root, path, MARK)) ?? "").replace(`"${MARK}"`, () => raw);
const escaped = (name: string) => `"${[...name].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")}"`;

const mutation = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("none" as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("replace" as const), pick: fc.nat(), value: fc.constantFrom(...WRONG) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("huge-string" as const),
      pick: fc.nat(),
      bytes: fc.constantFrom(301, 5_001, 100_001, 1_000_000, 1_048_600),
      char: fc.constantFrom("a", "é", "😀", "\u0000"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("huge-array" as const), pick: fc.nat(), length: fc.constantFrom(51, 501, 1_001, 100_000) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("extra" as const),
      pick: fc.nat(),
      name: fc.constantFrom(...EXTRA_NAMES),
      value: fc.constantFrom(...WRONG),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("deep" as const),
      pick: fc.nat(),
      depth: fc.constantFrom(60, 62, 63, 64, 65, 100, 2_000, 20_000),
      shape: fc.constantFrom("[", "{"),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("raw" as const), pick: fc.nat(), literal: fc.constantFrom(...RAW_LITERALS) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("duplicate" as const), pick: fc.nat(), same: fc.boolean(), escape: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("utf8" as const), pick: fc.nat(), bytes: fc.constantFrom(...BAD_UTF8) }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("inside" as const), pick: fc.nat(), char: fc.constantFrom(...INSIDE), at: fc.nat() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("extras" as const), pick: fc.nat(), count: fc.constantFrom(26, 1_000, 60_000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("syntax" as const), variant: fc.nat({ max: SYNTAX.length - 1 }) }) },
);

/** A valid instance of the operation's request schema with (at most) one thing wrong in it. */
export function bodyArbitrary(schema: Schema, components: Components, ids: Ids): fc.Arbitrary<Body> {
  const patterned = (path: Path) => schemaAt(schema, components, path)?.pattern !== undefined;
  return fc.tuple(arbitraryOf(schema, components, ids), mutation).map(([valid, m]) => mutate(valid, m, patterned));
}

type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

function mutate(valid: unknown, m: Mutation, patterned: (path: Path) => boolean): Body {
  const pick = "pick" in m ? m.pick : 0;
  const nodes = pathsOf(valid);
  const node = nodes[pick % nodes.length]!;
  const objects = nodes.filter((n) => n.value && typeof n.value === "object" && !Array.isArray(n.value));
  const object = objects.length ? objects[pick % objects.length]! : { path: [], value: {} };
  const where = `/${node.path.join("/")}`;
  switch (m.kind) {
    case "delete":
      return { text: JSON.stringify(deleteAt(valid, node.path)) ?? "", note: `delete ${where}` };
    case "replace":
      return { text: JSON.stringify(setAt(valid, node.path, m.value)), note: `${where} = ${JSON.stringify(m.value)}` };
    case "huge-string": {
      // As JSON writes it: "\u0000" takes six bytes, "é" two.
      const perChar = new TextEncoder().encode(JSON.stringify(m.char)).length - 2;
      return {
        text: JSON.stringify(setAt(valid, node.path, m.char.repeat(Math.floor(m.bytes / perChar)))),
        note: `${where} = ${JSON.stringify(m.char)} x ${m.bytes} bytes`,
      };
    }
    case "huge-array": {
      const first = Array.isArray(node.value) && node.value.length ? node.value[0] : 0;
      const element = JSON.stringify(first).length * m.length < MAX_BYTES / 2 ? first : 0;
      return {
        text: JSON.stringify(setAt(valid, node.path, Array(m.length).fill(element))),
        note: `${where} = [${JSON.stringify(element)} x ${m.length}]`,
      };
    }
    case "extra": {
      const target = (object.value as Record<string, unknown>) ?? {};
      // defineProperty: a plain assignment to "__proto__" would set the prototype, not a member.
      const withExtra = Object.defineProperty(structuredClone(target), m.name, {
        value: m.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return {
        text: JSON.stringify(setAt(valid, object.path, withExtra)),
        note: `extra member ${JSON.stringify(m.name.slice(0, 20))} at /${object.path.join("/")}`,
      };
    }
    case "deep": {
      const close = m.shape === "[" ? "]" : "}";
      const open = m.shape === "[" ? "[" : '{"a":';
      const inner = m.shape === "[" ? "" : "null";
      return {
        text: withRaw(valid, node.path, open.repeat(m.depth) + inner + close.repeat(m.depth)),
        note: `${where} nested ${m.depth} levels of ${m.shape}`,
      };
    }
    case "raw":
      return { text: withRaw(valid, node.path, m.literal), note: `${where} = ${m.literal} (raw)` };
    case "duplicate": {
      const target = (object.value as Record<string, unknown>) ?? {};
      const name = Object.keys(target)[0];
      if (name === undefined) return { text: JSON.stringify(valid), note: "none (no member to repeat)" };
      const copy = { ...target, [DUP]: m.same ? target[name] : "duplicate" };
      const text = JSON.stringify(setAt(valid, object.path, copy)).replace(`"${DUP}"`, () =>
        m.escape ? escaped(name) : JSON.stringify(name),
      );
      return { text, duplicate: true, note: `member ${name} twice${m.escape ? " (second escaped)" : ""} at /${object.path.join("/")}` };
    }
    case "utf8": {
      // Inside a string value, so that the body is otherwise what the operation takes.
      const strings = nodes.filter((n) => typeof n.value === "string" && n.path.length > 0);
      const target = strings[pick % Math.max(strings.length, 1)];
      const marked = target ? JSON.stringify(setAt(valid, target.path, `${UTF8}${target.value}`)) : JSON.stringify(valid);
      const at = Math.max(marked.indexOf(UTF8), 0);
      const text = marked.replace(UTF8, "");
      return { text, badBytes: { at, bytes: m.bytes }, note: `bytes ${m.bytes.map((b) => b.toString(16)).join(" ")} at ${at}` };
    }
    case "inside": {
      // Into a string member's valid value, somewhere in it: the document's pattern says whether it may pass.
      // A member whose text the document constrains (one line, a URL's grammar) when there is one, else
      // any member's text (not a type or an id: those have errors of their own).
      const texts = nodes.filter((n) => typeof n.value === "string" && n.path.includes("attributes"));
      const constrained = texts.filter((n) => patterned(n.path));
      const strings = constrained.length ? constrained : texts;
      const target = strings[pick % Math.max(strings.length, 1)];
      if (!target) return { text: JSON.stringify(valid), note: "none (no string attribute)" };
      const value = target.value as string;
      const at = m.at % (value.length + 1);
      return {
        text: JSON.stringify(setAt(valid, target.path, `${value.slice(0, at)}${m.char}${value.slice(at)}`)),
        note: `${JSON.stringify(m.char)} inside /${target.path.join("/")}`,
      };
    }
    case "extras": {
      const target = { ...((object.value as Record<string, unknown>) ?? {}) };
      for (let i = 0; i < m.count; i++) target[`zz${i}`] = 0;
      return { text: JSON.stringify(setAt(valid, object.path, target)), note: `${m.count} unknown members at /${object.path.join("/")}` };
    }
    case "syntax":
      return { text: SYNTAX[m.variant]!(JSON.stringify(valid)), note: `syntax variant ${m.variant}` };
    default:
      return { text: JSON.stringify(valid), note: "valid instance" };
  }
}

/** The deepest nesting of arrays and objects, counting the outermost as 1, without recursion. */
export function depthOf(text: string): number {
  let depth = 0,
    max = 0,
    inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "[" || ch === "{") max = Math.max(max, ++depth);
    else if (ch === "]" || ch === "}") depth--;
  }
  return max;
}

const wellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed();

function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === "string") return !wellFormed(value);
  if (value && typeof value === "object") return Object.entries(value).some(([k, v]) => !wellFormed(k) || hasLoneSurrogate(v));
  return false;
}

/** Why a body must be refused, by the document and the hardening rules; undefined if it may pass. */
export function whyBodyMustFail(body: Body, schema: Schema, components: Components, template: string): string | undefined {
  if (body.badBytes) return "invalid UTF-8";
  if (body.duplicate) return "duplicate member names";
  if (depthOf(body.text) > 64) return "nested deeper than 64";
  let parsed: unknown;
  try {
    // A byte order mark may be ignored (JSON's own rules allow it).
    parsed = JSON.parse(body.text.replace(/^\uFEFF/, ""));
  } catch {
    return "malformed JSON";
  }
  if (hasLoneSurrogate(parsed)) return "lone surrogate";
  if (!conforms(schema, components, parsed)) return "does not conform to the request schema";
  const url = (parsed as { data?: { attributes?: { url?: unknown } } }).data?.attributes?.url;
  if (
    template.startsWith("/v1/webhooks") &&
    typeof url === "string" &&
    URL.canParse(url) &&
    !["", "443", "8443"].includes(new URL(url).port)
  ) {
    return "webhook URL on a port other than 443 or 8443";
  }
  if (
    template === "/v1/vulns" &&
    Array.isArray((parsed as { data?: unknown }).data) &&
    duplicateCycle((parsed as { data: unknown[] }).data)
  )
    return "duplicates that name each other in one bulk change";
  return undefined;
}

/**
 * Whether the changes of a bulk PATCH make duplicates that lead back to themselves (X of Y and Y of X,
 * or a vuln of itself), which one PATCH after another would refuse too.
 */
export function duplicateCycle(changes: unknown[]): boolean {
  const named = new Map<string, string>();
  for (const c of changes as {
    id?: unknown;
    attributes?: { triage_state?: unknown };
    relationships?: { duplicate_of?: { data?: { id?: unknown } | null } };
  }[]) {
    const of = c?.relationships?.duplicate_of?.data?.id;
    if (typeof c?.id === "string" && c.attributes?.triage_state === "duplicate" && typeof of === "string") named.set(c.id, of);
  }
  for (const start of named.keys()) {
    const seen = new Set<string>();
    for (let at: string | undefined = start; at !== undefined; at = named.get(at)) {
      if (seen.has(at)) return true;
      seen.add(at);
    }
  }
  return false;
}
