// The technical facts of a report that survive rewording: the endpoint and parameter it names, the route,
// the weakness (CWE), the payload family and the files attached. Two reports of one finding written by
// different people share few word triples, but usually these.

import { classesIn, type FoundUrl, splitText } from "./tokens";

export type FingerprintKind = "file" | "ep" | "path" | "cwe" | "payload";

/** How much sharing one kind says about two reports being one finding (combined as independent evidence). */
export const WEIGHTS: Readonly<Record<FingerprintKind, number>> = { file: 0.9, ep: 0.4, path: 0.15, cwe: 0.2, payload: 0.1 };

const CAP: Readonly<Record<Exclude<FingerprintKind, "file">, number>> = { ep: 4, path: 4, cwe: 3, payload: 4 };

/** Payload families: what a reporter's proof of concept tries, whatever its exact characters. */
const PAYLOADS: readonly [RegExp, string][] = [
  [/<script/, "xss:script"],
  [/\bon(?:error|load|mouseover|focus|toggle|click|begin)\s*=/, "xss:handler"],
  [/javascript:/, "xss:uri"],
  [/'\s*or\s*'?1'?\s*=\s*'?1|\bor\s+1\s*=\s*1\b/, "sqli:tautology"],
  [/\bunion(?:\s|\/\*\*\/|\+)+(?:all(?:\s|\+)+)?select\b/, "sqli:union"],
  [/\b(?:sleep|pg_sleep)\s*\(|waitfor\s+delay/, "sqli:time"],
  [/\.\.(?:\/|\\|%2f|%5c)/, "traversal:dotdot"],
  [/\{\{\s*7\s*\*\s*7\s*\}\}|\$\{\s*7\s*\*\s*7\s*\}/, "ssti:arithmetic"],
  [/\$\{jndi:/, "jndi:lookup"],
  [/<!entity/, "xxe:entity"],
  [/169\.254\.169\.254|metadata\.google\.internal/, "ssrf:metadata"],
  [/"alg"\s*:\s*"none"/, "jwt:none"],
  [/[;|]\s*(?:id|whoami|uname)\b|\$\((?:id|whoami)\)/, "cmdi:shell"],
];

/** A URL of someone else's: an attacker's server, a metadata address, a file on the server. Not this product's route. */
const FOREIGN_HOST = /^(?:\d+\.\d+\.\d+\.\d+|localhost|.*(?:evil|attacker|collaborator|oast|interact|example)\b.*)$/;
const FOREIGN_PATH = /^\/(?:etc|proc|windows|bin|usr|var|tmp|latest|computemetadata)(?:\/|$)/;

/** Words that follow or precede "parameter" without being one's name. */
const NOT_A_NAME = new Set(
  `the a an is are was in of on to for this that same vulnerable affected injectable following above below search query get post body
  json form url value values name names which each every any some its his her their another other input hidden user reflected stored
  echoed passed sent used not also then now was being missing unsanitised unsanitized unescaped injected called named`.split(/\s+/),
);

/** Parameter names the prose gives: "parameter `q`", "the 'q' field", "param q", "the q parameter". */
export function namedParameters(text: string): string[] {
  const names = new Set<string>();
  const name = "([a-z_][a-z0-9_.\\[\\]-]{0,40})";
  const patterns = [
    new RegExp(`\\b(?:parameters?|params?|fields?|arguments?|args?|inputs?|keys?)(?:\\s+is|\\s*[:=])?\\s*[\`'"]${name}[\`'"]`, "g"),
    new RegExp(
      `[\`'"]${name}[\`'"]\\s+(?:query |url |get |post |body |form |json )?(?:parameters?|params?|fields?|arguments?|inputs?)\\b`,
      "g",
    ),
    new RegExp(`\\b(?:parameters?|params?|fields?)(?:\\s+name)?\\s*[:=]?\\s+${name}\\b`, "g"),
    new RegExp(`\\b(?:parameter|param)\\s+is\\s+${name}\\b`, "g"),
    new RegExp(`\\b(?:the|its)\\s+${name}\\s+(?:query |url |get |post |body |form |json )?(?:parameter|param)\\b`, "g"),
    new RegExp(`\\b(?:fields?|parameters?|params?|inputs?)\\s+(?:called|named)\\s+[\`'"]?${name}\\b`, "g"),
  ];
  for (const p of patterns) for (const m of text.matchAll(p)) if (!NOT_A_NAME.has(m[1]!)) names.add(m[1]!);
  return [...names];
}

function payloadsIn(text: string): string[] {
  return PAYLOADS.filter(([p]) => p.test(text)).map(([, family]) => family);
}

/** A value no form fills in: the tester's input, hence the parameter the report is about. */
const unusual = (v: string) => v.length > 16 || /[^a-z0-9 _.@-]/i.test(v);

const ours = (u: FoundUrl) => !(u.host && FOREIGN_HOST.test(u.host)) && !FOREIGN_PATH.test(u.template);

/** The fingerprints of a report's text, as `kind:value` strings, each kind capped. Files are added when they arrive. */
export function fingerprints(title: string, description: string): string[] {
  const { prose, urls } = splitText(title, description);
  const raw = `${title}\n${description}`.slice(0, 20_000).toLowerCase();
  const routes = urls.filter(ours);
  const named = namedParameters(raw);
  const decoded = routes.flatMap((u) => u.query.map(([, v]) => v)).join("\n");

  const eps: string[] = [];
  for (const u of routes) {
    if (u.query.length === 0) continue;
    const chosen = u.query.filter(([k, v]) => named.includes(k) || payloadsIn(v).length > 0 || unusual(v)).map(([k]) => k);
    for (const k of chosen.length > 0 ? chosen : u.query.slice(0, 3).map(([k]) => k)) eps.push(`ep:${u.template}?${k}`);
  }
  // A parameter named in prose but in no URL's query is one of the route's (a form or JSON body's).
  const templates = [...new Set(routes.map((u) => u.template))];
  for (const k of named) {
    if (routes.some((u) => u.query.some(([q]) => q === k))) continue;
    for (const t of templates.slice(0, 2)) eps.push(`ep:${t}?${k}`);
  }

  const cwes = [...[...raw.matchAll(/\bcwe[- ]?(\d{1,4})\b/g)].map((m) => Number(m[1])), ...classesIn(prose).map((c) => c.cwe)];
  const out = [
    ...cap("ep", eps),
    ...cap(
      "path",
      templates.map((t) => `path:${t}`),
    ),
    ...cap(
      "cwe",
      cwes.map((n) => `cwe:${n}`),
    ),
    ...cap(
      "payload",
      payloadsIn(`${raw}\n${decoded}`).map((f) => `payload:${f}`),
    ),
  ];
  return out;
}

function cap(kind: Exclude<FingerprintKind, "file">, values: string[]): string[] {
  return [...new Set(values)].slice(0, CAP[kind]);
}

export const kindOf = (fp: string) => fp.slice(0, fp.indexOf(":")) as FingerprintKind;

/** The fingerprints a new report is looked up by, the most specific first (a file, an endpoint with its parameter, a route), at most 6. */
export function lookupFingerprints(fps: readonly string[]): string[] {
  return [
    ...fps.filter((f) => kindOf(f) === "file"),
    ...fps.filter((f) => kindOf(f) === "ep"),
    ...fps.filter((f) => kindOf(f) === "path"),
  ].slice(0, 6);
}

export const fileFingerprint = (sha256: string) => `file:${sha256.toLowerCase()}`;

/** The stored key of a fingerprint: 16 hex of SHA-256 of `kind:value`, so a long value costs an index no more than a short one. */
export async function fingerprintKey(fp: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(fp)));
  return [...digest.subarray(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
