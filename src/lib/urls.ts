// A web address the API keeps and publishes (a website, a contact page, an advisory's reference) is a
// URI as RFC 3986 writes one, not only what a browser's URL parser accepts: the parser takes a space, a
// quote, a backslash, a line break or a non-ASCII letter and fixes it up, and the address kept as sent
// then fails every reader that goes by the RFC (JSON Schema's "uri" format in CSAF, OSV and CVE
// records, RFC 9116's security.txt). So what the RFC leaves out is refused: such characters are written
// percent-encoded (a space is %20), an international domain name in its xn-- form.

const UNRESERVED_OR_SUB_DELIM = "A-Za-z0-9\\-._~!$&'()*+,;=";
const PCT = "%[0-9A-Fa-f]{2}";
const PCHAR = `(?:[${UNRESERVED_OR_SUB_DELIM}:@]|${PCT})`;
const AUTHORITY =
  `(?:(?:[${UNRESERVED_OR_SUB_DELIM}:]|${PCT})*@)?` + // user information
  `(?:\\[[0-9A-Fa-f:.]+\\]|(?:[${UNRESERVED_OR_SUB_DELIM}]|${PCT})+)` + // an IPv6 literal or a name
  "(?::[0-9]*)?";
const REST = `(?:/${PCHAR}*)*(?:\\?(?:${PCHAR}|[/?])*)?(?:#(?:${PCHAR}|[/?])*)?`;
/** Any case of the scheme, as RFC 3986 allows; no regular expression flag, so the pattern reads the same in the document. */
const SCHEME = { http: "[Hh][Tt][Tt][Pp][Ss]?", https: "[Hh][Tt][Tt][Pp][Ss]" };

/** An absolute http or https URI of RFC 3986 (the grammar only; `isWebUrl` also parses it). */
export const HTTP_URL_PATTERN = new RegExp(`^${SCHEME.http}://${AUTHORITY}${REST}$`);
/** The same, https only. */
export const HTTPS_URL_PATTERN = new RegExp(`^${SCHEME.https}://${AUTHORITY}${REST}$`);

export const WEB_URL_RULE = "spaces, quotes, backslashes and other characters RFC 3986 leaves out percent-encoded (a space is %20)";

/** Whether `value` is an RFC 3986 web address that a URL parser also reads, with a host. */
export function isWebUrl(value: string, schemes: "http" | "https" = "http"): boolean {
  if (!(schemes === "https" ? HTTPS_URL_PATTERN : HTTP_URL_PATTERN).test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || (schemes === "http" && url.protocol === "http:")) && url.hostname !== "";
  } catch {
    return false;
  }
}
