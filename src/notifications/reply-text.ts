import { LIMITS } from "../lib/limits";

// What a reporter wrote in an e-mailed reply: the text above the quoted history and the signature. A
// body may be 10 MiB of anything while a reply holds at most LIMITS.commentLength characters, so only
// the start of a plain-text body is read, and every step is one forward scan with no backtracking:
// the work is bounded by what is read, whatever the body holds (a pattern with two `.+` took seconds on
// one long line). `Work` counts the characters the scans examine, so tests and the bench can hold the
// code to that bound without timing it.

/** Characters examined, added up by the scans below. */
export interface Work {
  steps: number;
}

/** The reply, or too long: it did not end within the characters read. */
export type Reply = { text: string } | { tooLong: true };

const READ = LIMITS.emailReplyReadLength;

const isSpace = (ch: string | undefined) => ch !== undefined && /\s/.test(ch);

/** `On <anything> wrote:` (Gmail, Apple Mail, Thunderbird), on one line or joined from two. */
const onWrote = (s: string) => s.length >= 11 && s.startsWith("On ") && s.endsWith(" wrote:");

/** `Le <anything> a écrit :`, with or without the space before the colon. */
function leAEcrit(s: string): boolean {
  if (!s.startsWith("Le ") || !s.endsWith(":")) return false;
  const ends = isSpace(s[s.length - 2]) ? [s.length - 1, s.length - 2] : [s.length - 1];
  return ends.some((end) => end - " a écrit".length >= 4 && s.endsWith(" a écrit", end));
}

/** `Am <anything> schrieb <anything>:`; the first " schrieb " leaves the most room after it. */
function amSchrieb(s: string, work: Work): boolean {
  if (!s.startsWith("Am ") || !s.endsWith(":")) return false;
  work.steps += s.length;
  const at = s.indexOf(" schrieb ", 4);
  return at >= 0 && at + " schrieb ".length <= s.length - 2;
}

/** Outlook's `-----Original Message-----` (any case, two dashes or more each side). */
function originalMessage(s: string, work: Work): boolean {
  work.steps += s.length;
  let i = 0;
  while (s[i] === "-") i++;
  if (i < 2) return false;
  while (isSpace(s[i])) i++;
  if (s.slice(i, i + 16).toLowerCase() !== "original message") return false;
  i += 16;
  while (isSpace(s[i])) i++;
  const dashes = i;
  while (s[i] === "-") i++;
  return i - dashes >= 2 && i === s.length;
}

/** Outlook's rule before its `From:` block: five underscores or more, alone. */
function rule(s: string, work: Work): boolean {
  if (s.length < 5 || s[0] !== "_") return false;
  work.steps += s.length;
  for (let i = 0; i < s.length; i++) if (s[i] !== "_") return false;
  return true;
}

/** Whether line `i` starts what is not the reply: the signature, a quote, or the line that introduces it. */
function endsReply(lines: string[], i: number, work: Work): boolean {
  const line = lines[i]!;
  work.steps += line.length;
  if (line === "-- " || line === "--" || line.startsWith(">")) return true; // RFC 3676's signature; a quote
  const trimmed = line.trim();
  if (onWrote(trimmed) || leAEcrit(trimmed) || amSchrieb(trimmed, work) || originalMessage(trimmed, work) || rule(trimmed, work))
    return true;
  if (trimmed.startsWith("From: ") && trimmed.length > 6) return true; // a forwarded or Outlook header block
  // An introduction may wrap onto a second line before the quote ("On Mon, ... <x@y>\nwrote:").
  if (trimmed.startsWith("On ") && trimmed.length > 3 && i + 1 < lines.length) {
    const joined = `${trimmed} ${lines[i + 1]!.trim()}`;
    work.steps += joined.length;
    return onWrote(joined);
  }
  return false;
}

/**
 * The reply of a plain-text body: everything above the quoted history (the first quoting line, or the
 * line that introduces it) and above the signature ("-- " on its own line, RFC 3676), trimmed. Only the
 * first LIMITS.emailReplyReadLength characters are read; a reply that has not ended within them is too long.
 */
export function replyText(body: string, work: Work = { steps: 0 }): Reply {
  const cut = body.length > READ;
  const read = cut ? body.slice(0, READ) : body;
  work.steps += 2 * read.length; // line ends normalized, then split
  const lines = read.replace(/\r\n?/g, "\n").split("\n");
  // The last line read may go on past the cut: it is not known to end the reply or to belong to it.
  if (cut) lines.pop();
  let end = -1;
  for (let i = 0; i < lines.length && end < 0; i++) if (endsReply(lines, i, work)) end = i;
  if (cut && end < 0) return { tooLong: true };
  const text = (end < 0 ? lines : lines.slice(0, end)).join("\n").trim();
  work.steps += text.length;
  return { text };
}

/** Whether `html` holds `word` at `at`, ignoring the case of ASCII letters (`word` is lower case). */
function holdsAt(html: string, at: number, word: string, work: Work): boolean {
  if (at + word.length > html.length) return false;
  for (let k = 0; k < word.length; k++) {
    work.steps++;
    const c = html.charCodeAt(at + k);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== word.charCodeAt(k)) return false;
  }
  return true;
}

const ENTITIES: [string, string][] = [
  ["&nbsp;", " "],
  ["&lt;", "<"],
  ["&gt;", ">"],
  ["&quot;", '"'],
  ["&#39;", "'"],
  ["&amp;", "&"],
];

/**
 * The text of an HTML-only message, as plain text: scripts and styles out, everything from the first
 * <blockquote> on cut (the quoted history), line breaks for <br>, </p> and </div>, other tags out,
 * entities of the common kind decoded. One forward scan that stops once it has more text than a reply
 * can hold; a search that found nothing is never repeated, so a body of unclosed tags costs one pass.
 */
export function textOfHtml(html: string, work: Work = { steps: 0 }): string {
  let text = "";
  // For each thing searched for, the position from which it is known not to occur.
  const absentFrom = new Map<string, number>();
  /** The first `needle` at or after `from` that `matches`, or -1; a search that fails is not repeated. */
  const find = (what: string, needle: string, from: number, matches: (at: number) => boolean): number => {
    if (from >= (absentFrom.get(what) ?? Number.POSITIVE_INFINITY)) return -1;
    for (let at = html.indexOf(needle, from); at >= 0; at = html.indexOf(needle, at + 1)) {
      if (matches(at)) {
        work.steps += at - from;
        return at;
      }
    }
    work.steps += html.length - from;
    absentFrom.set(what, from);
    return -1;
  };
  let i = 0;
  while (i < html.length && text.length <= READ) {
    work.steps++;
    const ch = html[i]!;
    if (ch === "<") {
      const element = holdsAt(html, i, "<script", work) ? "script" : holdsAt(html, i, "<style", work) ? "style" : null;
      if (element) {
        const close = `</${element}>`;
        const at = find(close, "</", i + element.length + 1, (k) => holdsAt(html, k, close, work));
        if (at >= 0) {
          i = at + close.length;
          continue;
        }
      }
      if (holdsAt(html, i, "<blockquote", work)) break;
      if (holdsAt(html, i, "<br", work)) {
        let k = i + 3;
        while (isSpace(html[k])) k++;
        work.steps += k - i;
        if (html[k] === "/") k++;
        if (html[k] === ">") {
          text += "\n";
          i = k + 1;
          continue;
        }
      }
      const closing = holdsAt(html, i, "</p>", work) ? 4 : holdsAt(html, i, "</div>", work) ? 6 : 0;
      if (closing) {
        text += "\n";
        i += closing;
        continue;
      }
      const gt = i + 1 < html.length && html[i + 1] !== ">" ? find(">", ">", i + 1, () => true) : -1;
      if (gt >= 0) {
        i = gt + 1;
        continue;
      }
    } else if (ch === "&") {
      const entity = ENTITIES.find(([name]) => html.startsWith(name, i));
      if (entity) {
        text += entity[1];
        i += entity[0].length;
        continue;
      }
    }
    text += ch;
    i++;
  }
  return text;
}

/** The reply of a parsed message: its text part, or else its HTML part as text. */
export const replyOf = (email: { text?: string; html?: string }, work: Work = { steps: 0 }): Reply =>
  replyText(email.text ?? textOfHtml(email.html ?? "", work), work);
