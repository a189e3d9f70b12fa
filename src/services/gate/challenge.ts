import { and, eq, isNotNull, lte, sql } from "drizzle-orm";
import type { Db } from "../../db";
import { subquery } from "../../db/queries";
import { briefs, gateMarks } from "../../db/schema";
import { Conflict, NotFound } from "../../lib/domain-errors";
import { LIMITS } from "../../lib/limits";
import { issueChallenge, type PowChallenge, type PowKey, powDifficulty } from "../../lib/pow";

// A proof-of-work challenge for a published brief, as hard as its last hour and the client's make it
// (lib/pow.ts). Nothing is written: the challenge carries its brief and expiry under the HMAC, and the
// submission that spends it records it. One round trip, whatever the traffic: each count stops at the
// number past which the difficulty no longer rises.

const HOUR_MS = 3_600_000;

/**
 * The challenge for `shortcode`. `auto` answers too, whether or not its last hour asks for proof of work
 * right now: the page fetches a challenge when it loads, and a flood can start before it is sent; a
 * solution always counts (verified). Only `off` refuses (409): nothing there would ever check it.
 */
export async function briefChallenge(
  db: Db,
  { shortcode, addressTag, keys, nowMs }: { shortcode: string; addressTag: string; keys: readonly PowKey[]; nowMs: number },
): Promise<PowChallenge> {
  const now = new Date(nowMs).toISOString();
  const since = nowMs - HOUR_MS;
  const ofBrief = (column: string) => subquery`(SELECT ${sql.raw(column)} FROM briefs WHERE shortcode = ${shortcode})`;
  const bounded = (from: ReturnType<typeof subquery>) => db.select({ n: sql<number>`count(*)` }).from(subquery`(${from})`);
  const [found, briefHour, addressHour] = await db.batch([
    db
      .select({ proofOfWork: briefs.proofOfWork, expectedHourly: briefs.expectedHourly })
      .from(briefs)
      .where(and(eq(briefs.shortcode, shortcode), isNotNull(briefs.publishedAt), lte(briefs.publishedAt, now))),
    // Past twice the expected rate the brief's share of the difficulty is at its ceiling.
    bounded(
      subquery`SELECT 1 FROM ${gateMarks} WHERE ${gateMarks.briefId} = ${ofBrief("id")} AND ${gateMarks.atMs} > ${since} LIMIT coalesce(2 * ${ofBrief("expected_hourly")}, 0)`,
    ),
    bounded(
      subquery`SELECT 1 FROM ${gateMarks} WHERE ${gateMarks.addressTag} = ${addressTag} AND ${gateMarks.atMs} > ${since} LIMIT ${LIMITS.powAddressBurst}`,
    ),
  ]);
  const brief = found[0];
  if (!brief) throw new NotFound("brief", "No published brief has that shortcode.");
  if (brief.proofOfWork === "off") throw new Conflict("This brief does not ask for proof of work: send the report without a solution.");
  const maxnumber = powDifficulty({
    briefHour: briefHour[0]?.n ?? 0,
    expectedHourly: brief.expectedHourly,
    addressHour: addressHour[0]?.n ?? 0,
  });
  return issueChallenge({ keys, shortcode, maxnumber, now: nowMs });
}
