import PostalMime, { type Email } from "postal-mime";
import { eq } from "drizzle-orm";
import { primaryDb } from "./db";
import { attachments, inboundEmails, vulns } from "./db/schema";
import { isUniqueViolation, subquery } from "./db/queries";
import { LIMITS, mib } from "./lib/limits";
import { nowIso } from "./lib/ids";
import type { QueueMessage } from "./lib/queue";
import { cleanFilename } from "./lib/filenames";
import { PLATFORM_CALLER, type ServiceContext } from "./services/context";
import { addReporterFile, replyAsReporter } from "./services/reporter";
import { parseReplyAddress, replyMatches } from "./notifications/links";

// Replies by e-mail (Cloudflare Email Routing hands every message for INBOUND_EMAIL_DOMAIN to the
// Worker's email handler). A reporter's answer to a notice, sent to its Reply-To, becomes a reporter
// comment exactly as one from the report's page would: the address's MAC names the report, the sender
// must be the report's contact_email, the quoted history and the signature are cut, and a message seen
// before (its Message-ID) adds nothing. Anything else is refused with a reason and writes nothing.

/** Why a message is refused: said to the sending server (setReject), never more than it needs. */
export class Refused extends Error {
  override name = "Refused";
}

/** The address of a header or envelope value: the part in angle brackets, if any, lower-cased. */
export const addressOf = (value: string) => (/<([^>]+)>/.exec(value)?.[1] ?? value).trim().toLowerCase();

const QUOTE_INTRO = [
  /^On .+ wrote:$/, // Gmail, Apple Mail, Thunderbird
  /^Le .+ a écrit\s?:$/,
  /^Am .+ schrieb .+:$/,
  /^-{2,}\s*Original Message\s*-{2,}$/i, // Outlook
  /^_{5,}$/, // Outlook's rule before From:
  /^From: .+$/, // a forwarded or Outlook header block
];

/**
 * The text the reporter wrote: everything above the quoted history (the first quoting line, or the
 * line that introduces it) and above the signature ("-- " on its own line, RFC 3676), trimmed.
 */
export function replyText(text: string): string {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "-- " || line === "--") break;
    if (line.startsWith(">")) break;
    // An introduction may wrap onto a second line before the quote ("On Mon, ... <x@y>\nwrote:").
    const joined = i + 1 < lines.length ? `${line.trim()} ${lines[i + 1]!.trim()}` : line.trim();
    if (QUOTE_INTRO.some((re) => re.test(line.trim()))) break;
    if (/^On .+/.test(line.trim()) && /^On .+ wrote:$/.test(joined)) break;
    kept.push(line);
  }
  return kept.join("\n").trim();
}

/** The text of an HTML-only message, as plain text: tags out, entities of the common kind decoded. */
function textOfHtml(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, "")
    .replace(/<blockquote[\s\S]*$/i, "")
    .replace(/<br\s*\/?>|<\/p>|<\/div>/gi, "\n")
    .replace(/<[^>]+>/g, "")
    .replace(/&nbsp;/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");
}

/** What the email handler does with one message; throws Refused with the reason to give the sender. */
export async function receiveReply(
  message: { from: string; to: string; raw: ReadableStream<Uint8Array>; rawSize: number },
  env: Env,
  defer: (work: Promise<unknown>) => void,
): Promise<{ commentId: string } | { duplicate: true }> {
  if (message.rawSize > LIMITS.inboundEmailBytes) throw new Refused(`Message too large: at most ${mib(LIMITS.inboundEmailBytes)}.`);
  const address = parseReplyAddress(message.to, env.INBOUND_EMAIL_DOMAIN);
  if (!address) throw new Refused("No such recipient.");
  const db = primaryDb(env.DB);
  const vuln = await db
    .select({
      id: vulns.id,
      organizationId: vulns.organizationId,
      contactEmail: vulns.contactEmail,
      // What the report holds already, so files that would not fit refuse the message before it writes anything.
      // (The outer row's id qualified: unqualified, it would name the attachment's own.)
      files: subquery<number>`(SELECT count(*) FROM ${attachments} a WHERE a.vuln_id = ${vulns.id})`,
      bytes: subquery<number>`(SELECT coalesce(sum(a.byte_size), 0) FROM ${attachments} a WHERE a.vuln_id = ${vulns.id})`,
    })
    .from(vulns)
    .where(eq(vulns.shortcode, address.shortcode))
    .get();
  if (!vuln || !(await replyMatches(vuln.id, address.given))) throw new Refused("No such recipient.");
  const reporter = vuln.contactEmail?.toLowerCase();
  if (!reporter || addressOf(message.from) !== reporter)
    throw new Refused("This address takes replies from the report's reporter only, from the address the report gave.");

  let email: Email;
  try {
    email = await PostalMime.parse(message.raw);
  } catch {
    throw new Refused("The message could not be read as MIME.");
  }
  if (!email.from?.address || email.from.address.toLowerCase() !== reporter)
    throw new Refused("This address takes replies from the report's reporter only, from the address the report gave.");
  const messageId = email.messageId?.trim();
  if (!messageId) throw new Refused("The message has no Message-ID.");
  const seen = await db.select({ id: inboundEmails.messageId }).from(inboundEmails).where(eq(inboundEmails.messageId, messageId)).get();
  if (seen) return { duplicate: true };

  const body = replyText(email.text ?? textOfHtml(email.html ?? ""));
  if (!body) throw new Refused("The reply has no text above the quoted message.");
  if (body.length > LIMITS.commentLength) throw new Refused(`The reply is longer than ${LIMITS.commentLength} characters.`);
  const files = (email.attachments ?? []).filter((a) => a.disposition !== "inline" || a.filename);
  let bytes = vuln.bytes;
  for (const file of files) {
    const size = typeof file.content === "string" ? new TextEncoder().encode(file.content).byteLength : file.content.byteLength;
    if (size > LIMITS.fileBytes) throw new Refused(`An attachment is over ${mib(LIMITS.fileBytes)}; send it from your report's page.`);
    if (cleanFilename(file.filename ?? "") === null) throw new Refused("An attachment has no usable name.");
    bytes += size;
  }
  if (vuln.files + files.length > LIMITS.filesPerVuln || bytes > LIMITS.bytesPerVuln)
    throw new Refused(
      `The attachments would take the report past ${LIMITS.filesPerVuln} files or ${mib(LIMITS.bytesPerVuln)}; nothing was added. Send fewer, or only the text.`,
    );

  const ctx: ServiceContext = { db, caller: PLATFORM_CALLER, queue: env.EVENTS as Queue<QueueMessage>, defer };
  const report = { id: vuln.id, organizationId: vuln.organizationId };
  let commentId: string;
  try {
    const comment = await replyAsReporter({
      ctx,
      report,
      body,
      // The message's id, in the comment's batch: a second delivery of it is refused there, whole.
      also: (p) => p.add(db.insert(inboundEmails).values({ messageId, vulnId: vuln.id, commentId: p.record.id, receivedAt: nowIso() })),
    });
    commentId = comment.id;
  } catch (err) {
    // The same message delivered twice at once: the other delivery wrote it.
    if (isUniqueViolation(err, "inbound_emails.")) return { duplicate: true };
    throw err;
  }
  // The files follow the comment, each within the limits of any upload (checked above, so only a race
  // with an upload from the page can refuse one here: it is logged).
  for (const file of files) {
    const bytes = typeof file.content === "string" ? new TextEncoder().encode(file.content) : new Uint8Array(file.content);
    try {
      await addReporterFile({
        ctx: { ...ctx, objects: env.ATTACHMENTS },
        report,
        body: new Response(bytes).body,
        meta: { filename: file.filename!, contentType: file.mimeType || undefined, declaredLength: bytes.byteLength },
      });
    } catch (err) {
      console.error(JSON.stringify({ level: "warn", message: "e-mailed attachment not stored", vuln_id: vuln.id, error: String(err) }));
    }
  }
  return { commentId };
}

/** The Worker's email handler: a reply becomes a comment, anything else is refused with its reason. */
export async function handleEmail(message: ForwardableEmailMessage, env: Env, ctx: ExecutionContext): Promise<void> {
  try {
    await receiveReply(message, env, (work) => ctx.waitUntil(work));
  } catch (err) {
    if (err instanceof Refused) {
      message.setReject(err.message);
      return;
    }
    console.error(JSON.stringify({ level: "error", message: "inbound e-mail failed", to: message.to, error: String(err) }));
    // Temporarily refused: the sending server tries again later, so nothing is lost.
    throw err;
  }
}
