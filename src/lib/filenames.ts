import { LIMITS } from "./limits";
// Names and types of uploaded files: what is kept, and what a download may tell a browser.

export const MAX_FILENAME_LENGTH = LIMITS.filenameLength;

// C0 and C1 controls and DEL, and the invisible format characters (bidi overrides such as U+202E,
// zero-width joiners) that make "exe.txt" read as "txt.exe" or hide part of a name.
const UNSAFE_CHARACTERS = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/**
 * A filename as kept: the last segment of any path (separators `/` and `\` and the directories
 * before them go, as browsers do with a download's name), without control or invisible format
 * characters, NFC, trimmed. Null when nothing usable is left ("", ".", ".." or over 255 characters).
 */
export function cleanFilename(raw: string): string | null {
  const withoutControls = raw.normalize("NFC").replace(UNSAFE_CHARACTERS, "");
  const name = withoutControls.split(/[/\\]/).at(-1)!.trim();
  if (name === "" || name === "." || name === ".." || [...name].length > MAX_FILENAME_LENGTH) return null;
  return name;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * The media type kept for an upload: the request's Content-Type reduced to `type/subtype` in lower
 * case, with `charset=utf-8` for text that declares it (any other charset is dropped: utf-7 and
 * friends can make a browser read text as markup); application/octet-stream when missing or malformed.
 */
/** What storedContentType returns: a lowercase type/subtype, text with its UTF-8 charset. */
export const STORED_CONTENT_TYPE = /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+(; charset=utf-8)?$/;

export function storedContentType(header: string | undefined): string {
  if (!header) return "application/octet-stream";
  const [essence = "", ...params] = header.split(";").map((p) => p.trim().toLowerCase());
  const [type, subtype, ...extra] = essence.split("/");
  if (!type || !subtype || extra.length || !TOKEN.test(type) || !TOKEN.test(subtype) || essence.length > 127)
    return "application/octet-stream";
  const utf8 = params.some((p) => /^charset="?utf-8"?$/.test(p));
  return type === "text" && utf8 ? `${essence}; charset=utf-8` : essence;
}

/**
 * Types a browser shows or saves without running anything as the API's origin. Markup (HTML, SVG,
 * XML, XHTML), scripts, and anything else not listed are served as application/octet-stream.
 */
const INERT_TYPES = new Set([
  "text/plain",
  "text/csv",
  "text/markdown",
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/avif",
  "image/bmp",
  "application/pdf",
  "application/json",
  "application/zip",
  "application/gzip",
  "application/x-tar",
  "application/x-7z-compressed",
  "application/vnd.tcpdump.pcap",
  "video/mp4",
  "video/webm",
  "video/quicktime",
  "audio/mpeg",
  "audio/wav",
  "application/octet-stream",
]);

/** The Content-Type of a download: the stored type if inert, text always as UTF-8 (the only charset kept). */
export function servedContentType(stored: string): string {
  const [essence = ""] = stored.split(/;\s*charset=/);
  if (!INERT_TYPES.has(essence)) return "application/octet-stream";
  if (essence.startsWith("text/")) return `${essence}; charset=utf-8`;
  return essence;
}

/**
 * `attachment` (never `inline`), with the name twice: RFC 5987/6266 `filename*` in UTF-8 for clients
 * that read it, and an ASCII `filename` for those that do not (non-ASCII, quotes, backslashes and
 * `%` become "_", so no client can misread where the value ends).
 */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/**
 * The headers of every attachment download, whoever asks (the organization, the reporter's API, the
 * reporter's page): always a download, never sniffed, never run as a page of this origin, never stored.
 */
export function downloadHeaders(file: { contentType: string; byteSize: number; filename: string }): Record<string, string> {
  return {
    "Content-Type": servedContentType(file.contentType),
    "Content-Length": String(file.byteSize),
    "Content-Disposition": contentDisposition(file.filename),
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "sandbox",
    "Cache-Control": "no-store",
  };
}
