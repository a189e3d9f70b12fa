// Turns a report's title and description into the words its MinHash is made of, so that two reports of
// one finding written by different people share as much as they honestly can: a URL counts as its path
// template (ids, numbers and hashes differ between reporters, the route does not), the many names of one
// weakness class become one word, and the words every report uses are dropped.

/** Only the start of a long report counts: the finding is told first, and the cost stays bounded. */
export const TEXT_LIMIT = 20_000;
export const TOKEN_LIMIT = 3_000;

/** The weakness classes, each with the phrases reporters use for it and its CWE. Order matters: the longer phrase first. */
export const WEAKNESS_CLASSES: readonly { token: string; cwe: number; phrases: RegExp }[] = [
  { token: "xss", cwe: 79, phrases: /\b(?:cross[- ]?site[- ]scripting|x\.?s\.?s|script injection|html injection|javascript injection)\b/g },
  { token: "sqli", cwe: 89, phrases: /\b(?:sql[- ]?injection|sqli|sql[- ]injectable|database injection|injection into the sql query)\b/g },
  {
    token: "idor",
    cwe: 639,
    phrases: /\b(?:idor|insecure direct object references?|broken object[- ]level authori[sz]ation|bola|access to other users'? data)\b/g,
  },
  { token: "csrf", cwe: 352, phrases: /\b(?:csrf|xsrf|cross[- ]?site request forgery|request forgery from another site)\b/g },
  {
    token: "openredirect",
    cwe: 601,
    phrases:
      /\b(?:open[- ]redirect(?:ion)?|unvalidated redirect|arbitrary redirect|redirect(?:s|ing)? to (?:any|an arbitrary|an external|external) (?:site|domain|url|website))\b/g,
  },
  { token: "ssrf", cwe: 918, phrases: /\b(?:ssrf|server[- ]side request forgery)\b/g },
  { token: "traversal", cwe: 22, phrases: /\b(?:path traversal|directory traversal|dot[- ]dot[- ]slash|local file inclusion|lfi)\b/g },
  { token: "xxe", cwe: 611, phrases: /\b(?:xxe|xml external entit(?:y|ies))\b/g },
  { token: "ratelimit", cwe: 307, phrases: /\b(?:rate[- ]limit(?:ing)?|brute[- ]?forc(?:e|ing)|no throttling|unlimited attempts)\b/g },
  {
    token: "stacktrace",
    cwe: 209,
    phrases:
      /\b(?:stack ?traces?|verbose errors?|debug (?:output|error page|page)|exception details|traceback|(?:information disclosure|leak) (?:through|via|in) error messages?)\b/g,
  },
  {
    token: "authbypass",
    cwe: 287,
    phrases:
      /\b(?:auth(?:entication)?[- ]bypass|bypass(?:es|ing)? (?:the )?(?:login|authentication)|improper authentication|broken authentication|access without (?:login|authentication))\b/g,
  },
  { token: "jwtnone", cwe: 347, phrases: /\b(?:alg(?:orithm)?[\s"':=]*none|unsigned (?:jwt|tokens?)|none algorithm)\b/g },
  { token: "cors", cwe: 942, phrases: /\b(?:cors misconfiguration|cors|access-control-allow-origin|cross[- ]origin resource sharing)\b/g },
  {
    token: "uploadrce",
    cwe: 434,
    phrases:
      /\b(?:unrestricted (?:file )?upload|malicious file upload|web ?shell|upload(?:ed)? (?:a )?php|rce (?:via|through) (?:file )?upload)\b/g,
  },
  { token: "ssti", cwe: 1336, phrases: /\b(?:ssti|server[- ]side template injection|template injection)\b/g },
  { token: "cmdi", cwe: 78, phrases: /\b(?:os command injection|command injection|rce via shell)\b/g },
];

const STOP_WORDS = new Set(
  `a about above after again against all also am an and any are as at be because been before being below between both but by can
  could did do does doing down during each few for from further had has have having he her here hers him his how i if in into is it
  its itself just me more most my no nor not now of off on once only or other our ours out over own please same she should so some
  such than that the their theirs them then there these they this those through to too under until up very was we were what when
  where which while who whom why will with would you your yours hi hello dear team thanks thank regards best kind sir madam found
  issue vulnerability vulnerable bug report reported security following below above hereby able see seen via get got use used using
  one two may might must like well sure let us there's it's i'm i've`
    .split(/\s+/)
    .filter(Boolean),
);

/** A path segment a reporter's own data fills in: numbers, uuids, long hex, placeholders. */
const ID_SEGMENT = /^(?:\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,}|\{[^}]*\}|:[a-z_]+)$/;

/** The route of a path: lowercase, id-like segments as `{id}`, no trailing slash. */
export function pathTemplate(path: string): string {
  const segments = path
    .toLowerCase()
    .split("/")
    .filter((s) => s !== "")
    .map((s) => (ID_SEGMENT.test(s) ? "{id}" : s));
  return `/${segments.join("/")}`;
}

/** A URL with its scheme and host, or a path that starts a word (`/api/v2/orders/12?x=1`). */
export const URL_PATTERN =
  /(?:https?:\/\/([a-z0-9.-]+)(?::\d+)?|(?<![\w/.:<-]))(\/[a-z0-9_\-.~%{}:/]*[a-z0-9_}~-])(\?[^\s"'`]*[^\s"'`.,;:!?)\]])?/gi;

export interface FoundUrl {
  /** The host when the URL gave one, lowercased. */
  host: string | null;
  path: string;
  template: string;
  /** Query parameter names, with their values decoded. */
  query: [string, string][];
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replaceAll("+", " "));
  } catch {
    return s;
  }
}

/** Every URL or path in the text, in order. A bare word like `/etc/passwd` counts too: it is someone's path. */
export function findUrls(text: string): FoundUrl[] {
  const found: FoundUrl[] = [];
  for (const m of text.matchAll(URL_PATTERN)) {
    const path = m[2]!;
    if (!path.includes("/", 1) && path.length < 3) continue;
    const query: [string, string][] = [];
    for (const part of (m[3] ?? "").slice(1).split("&")) {
      if (!part) continue;
      const eq = part.indexOf("=");
      const name = decode(eq < 0 ? part : part.slice(0, eq)).toLowerCase();
      if (/^[a-z_][a-z0-9_.[\]-]{0,40}$/.test(name)) query.push([name, decode(eq < 0 ? "" : part.slice(eq + 1))]);
    }
    found.push({ host: m[1]?.toLowerCase() ?? null, path, template: pathTemplate(path), query });
  }
  return found;
}

/** The report's text lowercased and cut to TEXT_LIMIT, its URLs apart from its prose (a class word inside a path is the path's). */
export function splitText(title: string, description: string): { prose: string; urls: FoundUrl[] } {
  const text = `${title}\n${description}`.slice(0, TEXT_LIMIT).toLowerCase();
  const urls = findUrls(text);
  // Class phrases are read in the prose between URLs only: a class word inside a path is the path's.
  const classWords = (t: string) => WEAKNESS_CLASSES.reduce((acc, c) => acc.replace(c.phrases, ` ${c.token} `), t);
  let prose = "";
  let at = 0;
  for (const m of text.matchAll(URL_PATTERN)) {
    const names = (m[3] ?? "")
      .slice(1)
      .split("&")
      .map((p) => p.split("=")[0])
      .filter(Boolean);
    // Each kept as one word, so no stop word inside a URL is read as prose.
    prose += `${classWords(text.slice(at, m.index))} §${pathTemplate(m[2]!)} ${names.map((n) => `§${n}`).join(" ")} `;
    at = m.index + m[0].length;
  }
  prose += classWords(text.slice(at));
  return { prose, urls };
}

/** The weakness classes the prose names. */
export function classesIn(prose: string): typeof WEAKNESS_CLASSES {
  const words = new Set(prose.split(/[^a-z0-9]+/));
  return WEAKNESS_CLASSES.filter((c) => words.has(c.token));
}

/** The words of a report, in order: URLs as path templates and their parameter names, numbers as 0, no stop words. */
export function tokens(title: string, description: string): string[] {
  const { prose } = splitText(title, description);
  const out: string[] = [];
  for (const m of prose.matchAll(/§[^\s]+|[a-z0-9]+(?:['_][a-z0-9]+)*/g)) {
    let word = m[0];
    if (word.startsWith("§")) word = word.slice(1);
    else if (STOP_WORDS.has(word)) continue;
    else if (/^\d+$/.test(word)) word = "0";
    out.push(word);
    if (out.length >= TOKEN_LIMIT) break;
  }
  return out;
}

/** Word 3-shingles, each as one string (a text of fewer than three words is one shingle). */
export function shingles(words: readonly string[]): string[] {
  if (words.length === 0) return [];
  if (words.length < 3) return [words.join(" ")];
  const out: string[] = [];
  for (let i = 0; i + 3 <= words.length; i++) out.push(`${words[i]} ${words[i + 1]} ${words[i + 2]}`);
  return out;
}
