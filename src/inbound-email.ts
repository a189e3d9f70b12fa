import PostalMime, { type Email } from "postal-mime";
import { eq } from "drizzle-orm";
import { type Db, primaryDb } from "./db";
import { attachments, inboundEmails, vulns } from "./db/schema";
import { isUniqueViolation, subquery } from "./db/queries";
import { LIMITS, mib } from "./lib/limits";
import { nowIso } from "./lib/ids";
import { type QueueMessage, shardQueue } from "./lib/queue";
import { shardsOf } from "./db/shards";
import { findTenant } from "./db/catalog";
import { cleanFilename } from "./lib/filenames";
import { PLATFORM_CALLER, type ServiceContext } from "./services/context";
import { addReporterFile, replyAsReporter } from "./services/reporter";
import { parseReplyAddress, replyMatches } from "./notifications/links";
import { replyOf } from "./notifications/reply-text";

// Replies by e-mail (Cloudflare Email Routing hands every message for INBOUND_EMAIL_DOMAIN to the
// Worker's email handler). A reporter's answer to a notice, sent to its Reply-To, becomes a reporter
// comment exactly as one from the report's page would: the address's MAC names the report, the sender
// must be the report's contact_email, the quoted history and the signature are cut, and a message seen
// before (its Message-ID) adds nothing. Anything else (an automatic reply, a file an upload would refuse)
// is refused whole with a reason and writes nothing.

/** Why a message is refused: said to the sending server (setReject), never more than it needs. */
export class Refused extends Error {
  override name = "Refused";
}

/** The address of a header or envelope value: the part in angle brackets, if any, lower-cased. */
export const addressOf = (value: string) => (/<([^>]+)>/.exec(value)?.[1] ?? value).trim().toLowerCase();

/**
 * Whether a message was sent by a program rather than written by a person (RFC 3834): Auto-Submitted
 * other than "no" (auto-replied, auto-generated, ...), the autoresponders' own X-Autoreply and
 * X-Autorespond, or Precedence auto_reply, bulk or junk. Such a message is no answer of the reporter's.
 */
export function automatic(headers: { key: string; value: string }[]): boolean {
  return headers.some(({ key, value }) => {
    const name = key.toLowerCase();
    if (name === "auto-submitted") {
      // The keyword, without comments or parameters: "auto-replied (vacation); owner-email=..."
      const keyword = value
        .replace(/\([^()]*\)/g, " ")
        .split(";")[0]!
        .trim()
        .toLowerCase();
      return keyword !== "no";
    }
    if (name === "x-autoreply" || name === "x-autorespond") return true;
    return name === "precedence" && ["auto_reply", "bulk", "junk"].includes(value.trim().toLowerCase());
  });
}

const NOT_THE_REPORTER = "This address takes replies from the report's reporter only, from the address the report gave.";

type InboundMessage = { from: string; to: string; raw: ReadableStream<Uint8Array>; rawSize: number };

/**
 * The checks the envelope answers, before the message is read: its size, the reply address and its
 * MAC, the sender. A message they refuse (or that fails here) has its stream cancelled: left unread,
 * the runtime would wait on it as a hung request.
 */
async function addressedReply(message: InboundMessage, env: Env) {
  try {
    if (message.rawSize > LIMITS.inboundEmailBytes) throw new Refused(`Message too large: at most ${mib(LIMITS.inboundEmailBytes)}.`);
    const address = parseReplyAddress(message.to, env.INBOUND_EMAIL_DOMAIN);
    if (!address) throw new Refused("No such recipient.");
    // A sharded deployment asks every shard for the report at once: the address's MAC says which one made it.
    const shards = shardsOf(env);
    const found = await Promise.all(shards.names.map((shard) => reportAddressed(primaryDb(shards.binding(shard)), address.shortcode)));
    let at: (NonNullable<Awaited<ReturnType<typeof reportAddressed>>> & { shard: string }) | null = null;
    for (const [i, candidate] of found.entries())
      if (candidate && (await replyMatches(candidate.vuln.id, address.given))) at = { ...candidate, shard: shards.names[i]! };
    if (!at) throw new Refused("No such recipient.");
    // While its organization moves, the report is in two databases and its writes wait (a thrown error is a
    // temporary refusal: the sending server tries again); the catalog says which database is its own.
    if (shards.sharded) {
      const tenant = await findTenant(primaryDb(shards.catalog), at.vuln.organizationId);
      if (tenant?.movingTo) throw new Error(`the report's organization is moving to ${tenant.movingTo}; the reply waits for the move`);
      const own = tenant && found[shards.names.indexOf(tenant.shard)];
      if (own) at = { ...own, shard: tenant.shard };
    }
    const { db, vuln } = at;
    const reporter = vuln.contactEmail?.toLowerCase();
    if (!reporter || addressOf(message.from) !== reporter) throw new Refused(NOT_THE_REPORTER);
    return { db, vuln, reporter, shard: shards.sharded ? at.shard : undefined };
  } catch (err) {
    await message.raw.cancel().catch(() => {});
    throw err;
  }
}

interface AddressedReport {
  id: string;
  organizationId: string;
  contactEmail: string | null;
  files: number;
  bytes: number;
}

/** The report a reply address names by its shortcode, in one database. */
async function reportAddressed(db: Db, shortcode: string): Promise<{ db: Db; vuln: AddressedReport } | null> {
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
    .where(eq(vulns.shortcode, shortcode))
    .get();
  return vuln ? { db, vuln } : null;
}

/** What the email handler does with one message; throws Refused with the reason to give the sender. */
export async function receiveReply(
  message: InboundMessage,
  env: Env,
  defer: (work: Promise<unknown>) => void,
): Promise<{ commentId: string } | { duplicate: true }> {
  const { db, vuln, reporter, shard } = await addressedReply(message, env);
  let email: Email;
  try {
    email = await PostalMime.parse(message.raw);
  } catch {
    throw new Refused("The message could not be read as MIME.");
  }
  if (!email.from?.address || email.from.address.toLowerCase() !== reporter) throw new Refused(NOT_THE_REPORTER);
  if (automatic(email.headers)) throw new Refused("This address takes replies written by the reporter, not automatic replies (RFC 3834).");
  const messageId = email.messageId?.trim();
  if (!messageId) throw new Refused("The message has no Message-ID.");
  const seen = await db.select({ id: inboundEmails.messageId }).from(inboundEmails).where(eq(inboundEmails.messageId, messageId)).get();
  if (seen) return { duplicate: true };

  const reply = replyOf(email);
  if ("tooLong" in reply || reply.text.length > LIMITS.commentLength)
    throw new Refused(`The reply is longer than ${LIMITS.commentLength} characters.`);
  const body = reply.text;
  if (!body) throw new Refused("The reply has no text above the quoted message.");
  const files = (email.attachments ?? []).filter((a) => a.disposition !== "inline" || a.filename);
  let bytes = vuln.bytes;
  for (const file of files) {
    const size = typeof file.content === "string" ? new TextEncoder().encode(file.content).byteLength : file.content.byteLength;
    if (size > LIMITS.fileBytes) throw new Refused(`An attachment is over ${mib(LIMITS.fileBytes)}; send it from your report's page.`);
    // An upload refuses an empty file; refused here, the comment is not stored without it.
    if (size === 0) throw new Refused("An attachment is empty; nothing was added. Send the file again, or only the text.");
    if (cleanFilename(file.filename ?? "") === null) throw new Refused("An attachment has no usable name.");
    bytes += size;
  }
  if (vuln.files + files.length > LIMITS.filesPerVuln || bytes > LIMITS.bytesPerVuln)
    throw new Refused(
      `The attachments would take the report past ${LIMITS.filesPerVuln} files or ${mib(LIMITS.bytesPerVuln)}; nothing was added. ` +
        `Send fewer, or only the text.`,
    );

  const queue = env.EVENTS as Queue<QueueMessage>;
  const ctx: ServiceContext = { db, caller: PLATFORM_CALLER, queue: shard ? shardQueue(queue, () => shard) : queue, defer };
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
