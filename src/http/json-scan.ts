import { LIMITS } from "../lib/limits";

/**
 * One pass over a JSON text, before anything parses it into objects, that finds what JSON.parse lets
 * through but the API must refuse: nesting deeper than a limit (recursive code further on would
 * overflow the stack), duplicate member names (which value wins differs between parsers, so a body
 * could mean one thing to the validator and another to the intake record), and strings holding half
 * of a UTF-16 surrogate pair (they have no UTF-8 form, so D1 text and webhook bodies would be
 * corrupted). The scan keeps an explicit stack and never recurses, so no input can overflow it.
 */

/** How deep a request document may nest, counting the outermost object or array as 1. */
export const MAX_JSON_DEPTH = LIMITS.jsonDepth;

export type JsonScanResult =
  | { ok: true; loneSurrogates: string[] }
  | { ok: false; problem: "malformed" | "too_deep" }
  | { ok: false; problem: "duplicate_member"; pointer: string };

interface Frame {
  array: boolean;
  index: number;
  key: string;
  keys?: Set<string>;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const MAX_REPORTED = 25;

// String.prototype.isWellFormed is ES2024; the runtime has it, the compiler's lib (ES2023) does not.
const wellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed();

export function escapePointerSegment(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** Scans `text`; lone surrogates are listed by JSON Pointer (up to 25), everything else stops the scan. */
export function scanJson(text: string, maxDepth: number = MAX_JSON_DEPTH): JsonScanResult {
  const n = text.length;
  const stack: Frame[] = [];
  const loneSurrogates: string[] = [];
  let i = 0;

  const skipWhitespace = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      i++;
    }
  };
  const pointer = () => stack.map((f) => `/${f.array ? String(f.index) : escapePointerSegment(f.key)}`).join("");

  /** Reads the string starting at text[i] (a quote); null if it is not a valid JSON string. */
  const readString = (): string | null => {
    i++;
    let out = "";
    let start = i;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(start, i);
        i++;
        return out;
      }
      if (c < 0x20) return null;
      if (c === 0x5c) {
        out += text.slice(start, i);
        const e = text[i + 1];
        if (e === "u") {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) return null;
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else if (e !== undefined && e in ESCAPES) {
          out += ESCAPES[e];
          i += 2;
        } else return null;
        start = i;
        continue;
      }
      i++;
    }
    return null;
  };

  /** Reads `"name":` in the object `frame`; a repeated name stops the scan. */
  const readMember = (frame: Frame): "ok" | "malformed" | "duplicate" => {
    if (text[i] !== '"') return "malformed";
    const key = readString();
    if (key === null) return "malformed";
    frame.key = key;
    if (frame.keys!.has(key)) return "duplicate";
    frame.keys!.add(key);
    if (!wellFormed(key) && loneSurrogates.length < MAX_REPORTED) loneSurrogates.push(pointer());
    skipWhitespace();
    if (text[i] !== ":") return "malformed";
    i++;
    return "ok";
  };
  const memberProblem = (r: "malformed" | "duplicate"): JsonScanResult =>
    r === "duplicate" ? { ok: false, problem: "duplicate_member", pointer: pointer() } : { ok: false, problem: "malformed" };

  value: for (;;) {
    skipWhitespace();
    const c = text[i];
    if (c === "{" || c === "[") {
      if (stack.length >= maxDepth) return { ok: false, problem: "too_deep" };
      i++;
      const frame: Frame = c === "{" ? { array: false, index: 0, key: "", keys: new Set() } : { array: true, index: 0, key: "" };
      stack.push(frame);
      skipWhitespace();
      if (text[i] === (frame.array ? "]" : "}")) {
        i++;
        stack.pop();
      } else {
        if (!frame.array) {
          const r = readMember(frame);
          if (r !== "ok") return memberProblem(r);
        }
        continue;
      }
    } else if (c === '"') {
      const s = readString();
      if (s === null) return { ok: false, problem: "malformed" };
      if (!wellFormed(s) && loneSurrogates.length < MAX_REPORTED) loneSurrogates.push(pointer());
    } else if (text.startsWith("true", i)) i += 4;
    else if (text.startsWith("false", i)) i += 5;
    else if (text.startsWith("null", i)) i += 4;
    else {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) return { ok: false, problem: "malformed" };
      i = NUMBER.lastIndex;
    }

    // After a value: close containers, or move on to the next element or member.
    for (;;) {
      skipWhitespace();
      const top = stack.at(-1);
      if (!top) return i === n ? { ok: true, loneSurrogates } : { ok: false, problem: "malformed" };
      const ch = text[i];
      if (ch === ",") {
        i++;
        if (top.array) top.index++;
        else {
          skipWhitespace();
          const r = readMember(top);
          if (r !== "ok") return memberProblem(r);
        }
        continue value;
      }
      if (ch !== (top.array ? "]" : "}")) return { ok: false, problem: "malformed" };
      i++;
      stack.pop();
    }
  }
}
