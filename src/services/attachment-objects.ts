import type { Db } from "../db";
import { attachments } from "../db/schema";
import { inList } from "../db/queries";
import { toHex } from "../lib/crypto";

export type Received =
  | { ok: true; byteSize: number; sha256: string }
  | { ok: false; problem: "too_large" | "length_mismatch" | "storage_failed" };

/**
 * Streams a request body into R2 under `key`, counting its bytes and computing its SHA-256 on the way
 * (the body is read once and never held whole when its length is declared). R2 takes a stream only of
 * known length, so a declared body goes through a FixedLengthStream, which also fails a body that is
 * longer or shorter than it said; a body without Content-Length (chunked) is gathered first, up to
 * the limit. Past `maxBytes` the stream errors, the put fails, and the caller deletes whatever is left.
 */
export async function receiveObject(
  bucket: R2Bucket,
  key: string,
  { body, ...opts }: { body: ReadableStream<Uint8Array>; declaredLength: number | null; maxBytes: number },
): Promise<Received> {
  const digest = new crypto.DigestStream("SHA-256");
  const digestWriter = digest.getWriter();
  let size = 0;
  let ended = false;
  const counted = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        size += chunk.byteLength;
        if (size > opts.maxBytes) throw new Error("attachment over the size limit");
        await digestWriter.write(chunk);
        controller.enqueue(chunk);
      },
      flush() {
        ended = true;
      },
    }),
  );
  try {
    if (opts.declaredLength !== null) {
      await bucket.put(key, counted.pipeThrough(new FixedLengthStream(opts.declaredLength)));
    } else {
      const bytes = new Uint8Array(await new Response(counted).arrayBuffer());
      await bucket.put(key, bytes);
    }
  } catch (err) {
    if (size > opts.maxBytes) return { ok: false, problem: "too_large" };
    const declared = opts.declaredLength;
    if (declared !== null && (size > declared || (ended && size < declared))) return { ok: false, problem: "length_mismatch" };
    console.error(JSON.stringify({ level: "error", message: "attachment upload to R2 failed", object_key: key, error: String(err) }));
    return { ok: false, problem: "storage_failed" };
  }
  await digestWriter.close();
  return { ok: true, byteSize: size, sha256: toHex(await digest.digest) };
}

/** Objects younger than this may belong to an upload whose row is about to be written. */
export const ORPHAN_GRACE_MS = 60 * 60 * 1000;
const PAGES_PER_RUN = 10;
// Where the sweep resumes next minute when one run did not reach the end of a large bucket. Kept in
// the bucket itself (outside the attachments' prefix), so the sweep needs no table of its own.
const CURSOR_KEY = "maintenance/orphan-sweep-cursor";

/**
 * The cron's sweep of attachment objects that no row names, older than an hour: uploads whose row
 * never committed, and the files of deleted attachments and vulns whose deletion after the answer
 * failed. It is the one retry for every object delete, so nothing else keeps a queue of them. Each
 * run reads at most ten pages of the listing (10,000 objects) and one D1 query per page.
 */
export async function purgeOrphanObjects(
  db: Db | readonly Db[],
  { bucket, prefix }: { bucket: R2Bucket; prefix: string },
  now = Date.now(),
): Promise<{ checked: number; deleted: number }> {
  let cursor = (await (await bucket.get(CURSOR_KEY))?.text()) || undefined;
  let checked = 0;
  let deleted = 0;
  for (let page = 0; page < PAGES_PER_RUN; page++) {
    let listing: R2Objects;
    try {
      listing = await bucket.list({ prefix, cursor, limit: 1000 });
    } catch (err) {
      if (!cursor) throw err;
      // A cursor can expire between runs: start over from the beginning next time.
      await bucket.delete(CURSOR_KEY);
      throw err;
    }
    const old = listing.objects.filter((o) => o.uploaded.getTime() < now - ORPHAN_GRACE_MS).map((o) => o.key);
    checked += listing.objects.length;
    if (old.length) {
      // A sharded deployment's files are named by rows in any shard: an object is an orphan only if none names it.
      const found = await Promise.all(
        [db].flat().map((one) => one.select({ key: attachments.objectKey }).from(attachments).where(inList(attachments.objectKey, old))),
      );
      const named = new Set(found.flat().map((r) => r.key));
      const orphans = old.filter((key) => !named.has(key));
      if (orphans.length) await bucket.delete(orphans);
      deleted += orphans.length;
    }
    cursor = listing.truncated ? listing.cursor : undefined;
    if (!cursor) break;
  }
  if (cursor) await bucket.put(CURSOR_KEY, cursor);
  else await bucket.delete(CURSOR_KEY);
  return { checked, deleted };
}
