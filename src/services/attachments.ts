import { and, count, eq, sum } from "drizzle-orm";
import { attachments, vulns, type AttachmentRow, type Uploader } from "../db/schema";
import type { Page } from "../db/pagination";
import { nowIso, uuidv7 } from "../lib/ids";
import { cleanFilename, MAX_FILENAME_LENGTH, storedContentType } from "../lib/filenames";
import { vulnScope, type ServiceContext } from "./context";
import { batchOf, where, whenRefused, subquery } from "../db/queries";
import { pageStatements, type Ordering } from "./list-pages";
import { commit, Plan, readBatch } from "./unit-of-work";
import { fileStatements } from "../intake/similarity";
import { receiveObject } from "./attachment-objects";
import { LIMITS, mib } from "../lib/limits";
import { BadInput, Conflict, Invalid, NotFound, TooLarge, Unavailable } from "../lib/domain-errors";
import { mayChange } from "./access";

export const MAX_FILE_BYTES = LIMITS.fileBytes;
export const MAX_FILES_PER_VULN = LIMITS.filesPerVuln;
export const MAX_BYTES_PER_VULN = LIMITS.bytesPerVuln;
export const OBJECT_PREFIX = "attachments/";

/**
 * A service context with the bucket the files live in. The organization's key and an operator use
 * it, and the reporter, through the reporter's verbs, for its own report only.
 */
export interface AttachmentContext extends ServiceContext {
  objects: R2Bucket;
}

export interface UploadMeta {
  /** `?filename=` as sent; cleaned here. */
  filename: string | undefined;
  /** The request's Content-Type, kept (normalized) as the file's type. */
  contentType: string | undefined;
  /** The request's Content-Length, if it gave one. */
  declaredLength: number | null;
}

export type AttachmentRecord = AttachmentRow;

const vulnNotFound = () => new NotFound("vuln", "No vuln has that id.");
const attachmentNotFound = () => new NotFound("attachment", "The vuln has no attachment with that id.");
const tooLarge = () => new TooLarge(`A file may be at most ${MAX_FILE_BYTES} bytes (${mib(MAX_FILE_BYTES)}).`);
const badFilename = () =>
  new Invalid({
    detail: `filename must have 1 to ${MAX_FILENAME_LENGTH} characters once path separators and control characters are removed.`,
    source: { parameter: "filename" },
  });
const emptyFile = () => new Invalid({ detail: "The file is empty: send its bytes as the request body." });
const overLimits = (files: number, bytes: number, adding: number) =>
  files >= MAX_FILES_PER_VULN
    ? new Invalid({ detail: `A vuln may have at most ${MAX_FILES_PER_VULN} attachments; delete one first.` })
    : bytes + adding > MAX_BYTES_PER_VULN
      ? new Invalid({
          detail: `A vuln's attachments may total at most ${MAX_BYTES_PER_VULN} bytes (${mib(MAX_BYTES_PER_VULN)}); this file would make ${bytes + adding}.`,
        })
      : null;

/** The vuln, scoped to the caller, and what its attachments already use. */
function vulnAndUsage(ctx: ServiceContext, vulnId: string) {
  return [
    ctx.db
      .select({ id: vulns.id, organizationId: vulns.organizationId })
      .from(vulns)
      .where(where(eq(vulns.id, vulnId), vulnScope(ctx, vulns.organizationId, vulns.id))),
    ctx.db
      .select({ files: count(), bytes: sum(attachments.byteSize).mapWith(Number) })
      .from(attachments)
      .where(eq(attachments.vulnId, vulnId)),
  ] as const;
}

/**
 * Stores a file for a vuln. The bytes go to R2 first, under a key no row names yet, while their
 * SHA-256 and size are computed; then the row, in one batch, inserted only if the vuln still exists
 * and the vuln's limits still hold at that moment (so concurrent uploads cannot pass 20 files or
 * 50 MiB). If anything after the upload fails, the object is deleted, and what a failed delete
 * leaves is an orphan no read can reach, which the cron purges.
 */
export async function uploadAttachment({
  ctx,
  vulnId,
  body,
  meta,
  by: uploadedBy,
  also,
}: {
  ctx: AttachmentContext;
  vulnId: string;
  body: ReadableStream<Uint8Array> | null;
  meta: UploadMeta;
  /** Whose file it is. */
  by: Uploader;
  /** More of the same change, in the row's own batch (a reporter's file also touches the vuln and fires Vuln::Updated). */
  also?: (p: Plan<AttachmentRecord>) => void;
}): Promise<AttachmentRecord> {
  mayChange(ctx, "vulns");
  // Refusals that need no I/O come first: nothing is read, nothing is stored.
  if (meta.declaredLength !== null && meta.declaredLength > MAX_FILE_BYTES) throw tooLarge();
  const filename = meta.filename === undefined ? null : cleanFilename(meta.filename);
  if (filename === null) throw badFilename();
  if (meta.declaredLength === 0 || body === null) throw emptyFile();

  const [found, usage] = await readBatch(ctx, vulnAndUsage(ctx, vulnId));
  const vuln = found[0];
  if (!vuln) throw vulnNotFound();
  const used = { files: usage[0]?.files ?? 0, bytes: usage[0]?.bytes ?? 0 };
  const refused = overLimits(used.files, used.bytes, meta.declaredLength ?? 0);
  if (refused) throw refused;

  const id = uuidv7();
  const objectKey = `${OBJECT_PREFIX}${vulnId}/${id}`;
  const received = await receiveObject(ctx.objects, objectKey, { body, declaredLength: meta.declaredLength, maxBytes: MAX_FILE_BYTES });
  const discard = () =>
    ctx.objects.delete(objectKey).catch((err) =>
      console.error(
        JSON.stringify({
          level: "warn",
          message: "attachment object not deleted; the cron purges it",
          object_key: objectKey,
          error: String(err),
        }),
      ),
    );
  if (!received.ok) {
    await discard();
    if (received.problem === "too_large") throw tooLarge();
    if (received.problem === "storage_failed") throw new Unavailable("File storage is unavailable; retry shortly.");
    throw new BadInput("The body's length does not match its Content-Length.", { header: "Content-Length" });
  }
  try {
    if (received.byteSize === 0) throw emptyFile();
    const late = overLimits(used.files, used.bytes, received.byteSize);
    if (late) throw late;
    const record: AttachmentRecord = {
      id,
      vulnId,
      organizationId: vuln.organizationId,
      filename,
      contentType: storedContentType(meta.contentType),
      byteSize: received.byteSize,
      sha256: received.sha256,
      uploadedBy,
      objectKey,
      createdAt: nowIso(),
    };
    // NULL unless, when the batch runs, the vuln is still there and the limits still hold: the NOT
    // NULL of vuln_id then refuses the whole batch (the Idempotency-Key's stored 201 included).
    const guardedVuln = subquery<string>`(SELECT ${vulns.id} FROM ${vulns} WHERE ${vulns.id} = ${vulnId} AND ${vulns.organizationId} = ${vuln.organizationId}
      AND (SELECT count(*) FROM ${attachments} WHERE ${attachments.vulnId} = ${vulnId}) < ${MAX_FILES_PER_VULN}
      AND (SELECT coalesce(sum(${attachments.byteSize}), 0) FROM ${attachments} WHERE ${attachments.vulnId} = ${vulnId}) + ${record.byteSize} <= ${MAX_BYTES_PER_VULN})`;
    const p = new Plan(record)
      .add(ctx.db.insert(attachments).values({ ...record, vulnId: guardedVuln }))
      .audits({ action: "attachment.create", target: { type: "attachment", id }, organizationId: vuln.organizationId });
    // The same file on another of the organization's reports makes them look alike (src/intake/similarity.ts).
    const file = { vulnId, organizationId: vuln.organizationId, sha256: record.sha256, nowIso: record.createdAt };
    for (const statement of await fileStatements(ctx.db, file)) p.add(statement);
    also?.(p);
    await whenRefused(
      () => commit(ctx, p, ctx.respond),
      async () => {
        const [again, now] = await ctx.db.batch(vulnAndUsage(ctx, vulnId));
        if (!again[0]) throw vulnNotFound();
        throw (
          overLimits(now[0]?.files ?? 0, now[0]?.bytes ?? 0, record.byteSize) ??
          new Conflict("The vuln changed while the file was uploading; retry.")
        );
      },
    );
    return record;
  } catch (err) {
    await discard();
    throw err;
  }
}

const ORDERINGS: Record<"created_at" | "-created_at", Ordering> = {
  created_at: { name: "created_at", column: attachments.createdAt, field: "createdAt", id: attachments.id, descending: false },
  "-created_at": { name: "-created_at", column: attachments.createdAt, field: "createdAt", id: attachments.id, descending: true },
};

/** A page of a vuln's attachments and their total, with the vuln's existence, in one round trip. */
export async function listAttachments(
  ctx: ServiceContext,
  vulnId: string,
  { page, sort = "-created_at" }: { page: Page; sort?: "created_at" | "-created_at" },
) {
  const ofVuln = and(eq(attachments.vulnId, vulnId), vulnScope(ctx, attachments.organizationId, attachments.vulnId));
  const spec = pageStatements<AttachmentRecord>({
    ordering: ORDERINGS[sort],
    page,
    rows: ({ seek, order, limit, offset }) =>
      ctx.db
        .select()
        .from(attachments)
        .where(and(ofVuln, seek))
        .orderBy(...order)
        .limit(limit)
        .offset(offset),
    probe: (at) => ctx.db.select({ id: attachments.id }).from(attachments).where(and(ofVuln, at)).limit(1),
    total: ctx.db.select({ total: count() }).from(attachments).where(ofVuln),
  });
  const [found, ...results] = await batchOf(ctx.db, [vulnAndUsage(ctx, vulnId)[0], ...spec.statements]);
  if (!(found as unknown[]).length) throw vulnNotFound();
  return spec.read(results);
}

/** One attachment of a vuln the caller can see: 404 vuln_not_found for the vuln, not_found for the file. */
export async function getAttachment(ctx: ServiceContext, vulnId: string, attachmentId: string): Promise<AttachmentRecord> {
  const [found, rows] = await ctx.db.batch([
    vulnAndUsage(ctx, vulnId)[0],
    ctx.db
      .select()
      .from(attachments)
      .where(
        and(
          eq(attachments.id, attachmentId),
          eq(attachments.vulnId, vulnId),
          vulnScope(ctx, attachments.organizationId, attachments.vulnId),
        ),
      ),
  ]);
  if (!found[0]) throw vulnNotFound();
  if (!rows[0]) throw attachmentNotFound();
  return rows[0];
}

/** The file's bytes, streamed from R2. Reads go through the row, so an orphan object is never served. */
export async function openAttachmentContent(ctx: AttachmentContext, vulnId: string, attachmentId: string) {
  const record = await getAttachment(ctx, vulnId, attachmentId);
  const object = await ctx.objects.get(record.objectKey);
  if (!object) {
    // A row without its object breaks the rule uploads keep; say so loudly rather than serve nothing.
    console.error(
      JSON.stringify({
        level: "error",
        message: "attachment row without its object",
        attachment_id: record.id,
        object_key: record.objectKey,
      }),
    );
    throw attachmentNotFound();
  }
  return { record, body: object.body };
}

/** Deletes an attachment: the row now, the object just after the answer (or by the cron). */
export async function deleteAttachment(ctx: AttachmentContext, vulnId: string, attachmentId: string): Promise<void> {
  mayChange(ctx, "vulns");
  const p = new Plan(null);
  const found = p.track<unknown[]>(vulnAndUsage(ctx, vulnId)[0]);
  const deleted = p.track<{ objectKey: string }[]>(
    ctx.db
      .delete(attachments)
      .where(
        and(
          eq(attachments.id, attachmentId),
          eq(attachments.vulnId, vulnId),
          vulnScope(ctx, attachments.organizationId, attachments.vulnId),
        ),
      )
      .returning({ objectKey: attachments.objectKey }),
  );
  p.audits({ action: "attachment.delete", target: { type: "attachment", id: attachmentId } }, { ifChanged: deleted });
  const { results } = await commit(ctx, p);
  if (!found.of(results)[0]) throw vulnNotFound();
  const [gone] = deleted.of(results);
  if (!gone) throw attachmentNotFound();
  deleteObjectsLater(ctx, ctx.objects, [gone.objectKey]);
}

/** The object keys of a vuln's files, for the batch that deletes the vuln (rows go by cascade). */
export function vulnObjectKeys(ctx: ServiceContext, vulnId: string) {
  return ctx.db
    .select({ objectKey: attachments.objectKey })
    .from(attachments)
    .where(and(eq(attachments.vulnId, vulnId), vulnScope(ctx, attachments.organizationId, attachments.vulnId)));
}

/**
 * Deletes objects whose rows are gone, after the response. No row names them any more, so they are
 * unreadable already; a failure here leaves orphans, and the cron's sweep is the retry.
 */
export function deleteObjectsLater(ctx: ServiceContext, objects: R2Bucket, keys: string[]): void {
  if (keys.length === 0) return;
  ctx.defer(
    objects.delete(keys).catch((err) =>
      console.error(
        JSON.stringify({
          level: "warn",
          message: "attachment objects not deleted; the cron purges them",
          count: keys.length,
          error: String(err),
        }),
      ),
    ),
  );
}
