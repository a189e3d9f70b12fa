import { and, eq, type SQL, sql } from "drizzle-orm";
import type { Db, Statement } from "../db";
import { subquery } from "../db/queries";
import { type Submission, vulnFingerprints, vulnLshBands, vulnSignatures, vulns, vulnSimilarities } from "../db/schema";
import {
  DUPLICATE_THRESHOLD,
  decodeSignature,
  encodeSignature,
  fileFingerprint,
  fingerprintKey,
  lookupFingerprints,
  type ReportSignature,
  SIMILAR_LIMIT,
  SIMILAR_MIN_SCORE,
  SIMILARITY_VERSION,
  type Signature,
  signatureOf,
  similarity,
} from "../lib/similarity";

// The intake's near-duplicate step (src/lib/similarity says what a signature is). It adds no round trip:
// the consumer's second batch (the one that moves each report to received) stores the report's signature,
// band keys and fingerprints and, right after, looks up its candidates; its third batch writes what they
// scored. D1 runs batches one at a time, so of two look-alikes stored concurrently the later batch sees the
// earlier one's rows: no pair is lost to a race. Every write is conditional or ON CONFLICT DO NOTHING, so a
// redelivered message adds nothing, and each joins the vuln's row, so a report deleted meanwhile gets none.

/** The newest reports read per band key and per fingerprint: the bound on rows read, whatever the organization's size. */
export const BAND_NEIGHBOURS = 8;
export const FINGERPRINT_NEIGHBOURS = 10;

export interface IntakeSignature {
  vulnId: string;
  organizationId: string;
  signature: ReportSignature;
  /** The stored keys (16 hex) of the fingerprints it is looked up by. */
  lookupKeys: string[];
  storedKeys: string[];
}

/** The signature of a new report, from its submission as received (its evidence counts as description). */
export async function intakeSignature(vulnId: string, organizationId: string, submission: Submission): Promise<IntakeSignature> {
  const evidence = Object.values(submission.evidence ?? {}).filter((v): v is string => typeof v === "string");
  const signature = signatureOf(submission.title, [submission.description, ...evidence].join("\n"));
  const keyOf = new Map(await Promise.all(signature.fingerprints.map(async (f) => [f, await fingerprintKey(f)] as const)));
  return {
    vulnId,
    organizationId,
    signature,
    storedKeys: [...new Set(keyOf.values())],
    lookupKeys: lookupFingerprints(signature.fingerprints).map((f) => keyOf.get(f)!),
  };
}

/** Only while the report exists, in its organization. */
const exists = (vulnId: string, organizationId: string) =>
  subquery`EXISTS (SELECT 1 FROM vulns WHERE vulns.id = ${vulnId} AND vulns.organization_id = ${organizationId})`;

/** D1 allows 5 terms in a compound SELECT: the seeks are joined as a tree of unions of at most 5. */
export const COMPOUND_TERMS = 5;

function union(terms: SQL[]): SQL {
  let level = terms;
  while (level.length > COMPOUND_TERMS) {
    const next: SQL[] = [];
    for (let i = 0; i < level.length; i += COMPOUND_TERMS) {
      next.push(subquery`SELECT vuln_id FROM (${sql.join(level.slice(i, i + COMPOUND_TERMS), sql` UNION `)})`);
    }
    level = next;
  }
  return sql.join(level, sql` UNION `);
}

export interface Candidate extends Signature {
  vulnId: string;
}

/**
 * The statements that store the report's signature, bands and fingerprints, then read its candidates: the
 * newest BAND_NEIGHBOURS of each band key and FINGERPRINT_NEIGHBOURS of each lookup fingerprint (each a seek
 * on a primary key), with their signatures. `candidates` reads them from the batch's results.
 */
export function storeAndLookup(db: Db, s: IntakeSignature): { statements: Statement[]; candidates: (results: unknown[]) => Candidate[] } {
  const { vulnId, organizationId, signature } = s;
  const literal = (key: number) => {
    // Band keys are integers this code computed: inlined, they leave the bound parameters (100 at most) to the ids.
    if (!Number.isSafeInteger(key)) throw new Error(`a band key is a safe integer, not ${key}`);
    return sql.raw(String(key));
  };
  const seeks = [
    ...signature.bands.map(
      (key) => subquery`SELECT vuln_id FROM (SELECT vuln_id FROM vuln_lsh_bands WHERE organization_id = ${organizationId}
        AND band_key = ${literal(key)} AND vuln_id <> ${vulnId} ORDER BY vuln_id DESC LIMIT ${sql.raw(String(BAND_NEIGHBOURS))})`,
    ),
    ...s.lookupKeys.map(
      (key) => subquery`SELECT vuln_id FROM (SELECT vuln_id FROM vuln_fingerprints WHERE organization_id = ${organizationId}
        AND fingerprint = ${key} AND vuln_id <> ${vulnId} ORDER BY vuln_id DESC LIMIT ${sql.raw(String(FINGERPRINT_NEIGHBOURS))})`,
    ),
  ];
  const statements: Statement[] = [
    db
      .insert(vulnSignatures)
      .select(
        db
          .select({
            vulnId: vulns.id,
            organizationId: vulns.organizationId,
            version: sql<number>`${SIMILARITY_VERSION}`.as("version"),
            minhash: sql<string>`${encodeSignature(signature.minhash)}`.as("minhash"),
            fingerprints: sql<string>`${JSON.stringify(signature.fingerprints)}`.as("fingerprints"),
          })
          .from(vulns)
          .where(and(eq(vulns.id, vulnId), eq(vulns.organizationId, organizationId))),
      )
      .onConflictDoNothing(),
  ];
  // The keys travel as one JSON parameter each: 32 bands bind 3 values, not 96.
  if (signature.bands.length > 0) {
    statements.push(
      db
        .insert(vulnLshBands)
        .select(
          db
            .select({
              organizationId: sql<string>`${organizationId}`.as("organization_id"),
              bandKey: sql<number>`value`.as("band_key"),
              vulnId: sql<string>`${vulnId}`.as("vuln_id"),
            })
            .from(sql`json_each(${JSON.stringify(signature.bands)})`)
            .where(exists(vulnId, organizationId)),
        )
        .onConflictDoNothing(),
    );
  }
  if (s.storedKeys.length > 0) {
    statements.push(
      db
        .insert(vulnFingerprints)
        .select(
          db
            .select({
              organizationId: sql<string>`${organizationId}`.as("organization_id"),
              fingerprint: sql<string>`value`.as("fingerprint"),
              vulnId: sql<string>`${vulnId}`.as("vuln_id"),
            })
            .from(sql`json_each(${JSON.stringify(s.storedKeys)})`)
            .where(exists(vulnId, organizationId)),
        )
        .onConflictDoNothing(),
    );
  }
  if (seeks.length === 0) return { statements, candidates: () => [] };
  statements.push(
    db
      .select({ vulnId: vulnSignatures.vulnId, minhash: vulnSignatures.minhash, fingerprints: vulnSignatures.fingerprints })
      .from(vulnSignatures)
      .where(
        and(
          eq(vulnSignatures.organizationId, organizationId),
          eq(vulnSignatures.version, SIMILARITY_VERSION),
          subquery`${vulnSignatures.vulnId} IN (${union(seeks)})`,
        ),
      ),
  );
  return {
    statements,
    candidates: (results) =>
      (results.at(-1) as { vulnId: string; minhash: string; fingerprints: string[] }[]).map((r) => ({
        vulnId: r.vulnId,
        minhash: decodeSignature(r.minhash),
        fingerprints: r.fingerprints,
      })),
  };
}

/**
 * What the candidates scored: the best SIMILAR_LIMIT at or above SIMILAR_MIN_SCORE, written both ways, and
 * the best above DUPLICATE_THRESHOLD set as the possible duplicate of whichever of the two was created
 * later (ids are UUIDv7: created order), unless that one already has a better one. Never a triage change.
 */
export function similarityStatements(db: Db, s: IntakeSignature, candidates: readonly Candidate[], nowIso: string): Statement[] {
  const scored = candidates
    .map((c) => ({ id: c.vulnId, ...similarity(s.signature, c) }))
    .filter((c) => c.score >= SIMILAR_MIN_SCORE)
    .sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : -1))
    .slice(0, SIMILAR_LIMIT);
  if (scored.length === 0) return [];
  const rows = scored.flatMap((c) => [
    [s.vulnId, c.id, c.score, JSON.stringify(c.reasons)],
    [c.id, s.vulnId, c.score, JSON.stringify(c.reasons)],
  ]);
  const statements: Statement[] = [
    db
      .insert(vulnSimilarities)
      .select(
        db
          .select({
            vulnId: sql<string>`json_extract(value, '$[0]')`.as("vuln_id"),
            similarId: sql<string>`json_extract(value, '$[1]')`.as("similar_id"),
            organizationId: sql<string>`${s.organizationId}`.as("organization_id"),
            score: sql<number>`json_extract(value, '$[2]')`.as("score"),
            reasons: sql<string>`json_extract(value, '$[3]')`.as("reasons"),
            createdAt: sql<string>`${nowIso}`.as("created_at"),
          })
          .from(sql`json_each(${JSON.stringify(rows)})`)
          // Both reports still there, in this organization (a candidate deleted since the lookup is skipped).
          .where(
            subquery`(SELECT count(*) FROM vulns WHERE vulns.organization_id = ${s.organizationId}
              AND vulns.id IN (json_extract(value, '$[0]'), json_extract(value, '$[1]'))) = 2`,
          ),
      )
      .onConflictDoNothing(),
  ];
  const best = scored[0]!;
  if (best.score > DUPLICATE_THRESHOLD) {
    const [earlier, later] = best.id < s.vulnId ? [best.id, s.vulnId] : [s.vulnId, best.id];
    statements.push(
      db
        .update(vulns)
        .set({ possibleDuplicateOfId: earlier, possibleDuplicateScore: best.score })
        .where(
          and(
            eq(vulns.id, later),
            eq(vulns.organizationId, s.organizationId),
            sql`coalesce(${vulns.possibleDuplicateScore}, 0) < ${best.score}`,
            exists(earlier, s.organizationId),
          ),
        ),
    );
  }
  return statements;
}

/** What sharing an attached file scores, alone (WEIGHTS.file). */
export const SAME_FILE_SCORE = 0.9;

/**
 * A file attached to a report: its `file:` fingerprint, and in the same batch, in SQL alone, the reports of the
 * organization holding the same file (the newest FINGERPRINT_NEIGHBOURS) become similar to it both ways (at least
 * SAME_FILE_SCORE, the reason added once), and the later-created of each such pair a possible duplicate of the
 * earlier unless it has a better one. Files arrive after their report's intake, hence a step of their own.
 */
export async function fileStatements(
  db: Db,
  file: { vulnId: string; organizationId: string; sha256: string; nowIso: string },
): Promise<Statement[]> {
  const { vulnId, organizationId, nowIso } = file;
  const fingerprint = fileFingerprint(file.sha256);
  const key = await fingerprintKey(fingerprint);
  const reason = JSON.stringify([`same file ${file.sha256.toLowerCase().slice(0, 8)}…`]);
  const holders = subquery`(SELECT vuln_id FROM vuln_fingerprints WHERE organization_id = ${organizationId} AND fingerprint = ${key}
    AND vuln_id <> ${vulnId} ORDER BY vuln_id DESC LIMIT ${sql.raw(String(FINGERPRINT_NEIGHBOURS))})`;
  const pair = (from: SQL, to: SQL) =>
    db
      .insert(vulnSimilarities)
      .select(
        db
          .select({
            vulnId: sql<string>`${from}`.as("vuln_id"),
            similarId: sql<string>`${to}`.as("similar_id"),
            organizationId: sql<string>`${organizationId}`.as("organization_id"),
            score: sql<number>`${SAME_FILE_SCORE}`.as("score"),
            reasons: sql<string>`${reason}`.as("reasons"),
            createdAt: sql<string>`${nowIso}`.as("created_at"),
          })
          .from(sql`${holders} AS holder`)
          .where(exists(vulnId, organizationId)),
      )
      .onConflictDoUpdate({
        target: [vulnSimilarities.vulnId, vulnSimilarities.similarId],
        set: {
          score: sql`max(${vulnSimilarities.score}, excluded.score)`,
          reasons: sql`CASE WHEN instr(${vulnSimilarities.reasons}, 'same file') > 0 THEN ${vulnSimilarities.reasons}
            ELSE json_insert(${vulnSimilarities.reasons}, '$[#]', excluded.reasons ->> '$[0]') END`,
        },
      });
  const guard = sql`coalesce(${vulns.possibleDuplicateScore}, 0) < ${SAME_FILE_SCORE}`;
  return [
    db
      .insert(vulnFingerprints)
      .select(
        db
          .select({
            organizationId: sql<string>`${organizationId}`.as("organization_id"),
            fingerprint: sql<string>`${key}`.as("fingerprint"),
            vulnId: sql<string>`${vulnId}`.as("vuln_id"),
          })
          .from(vulns)
          .where(and(eq(vulns.id, vulnId), eq(vulns.organizationId, organizationId))),
      )
      .onConflictDoNothing(),
    pair(sql`${vulnId}`, sql`holder.vuln_id`),
    pair(sql`holder.vuln_id`, sql`${vulnId}`),
    // This report, when an earlier one holds the file: the newest of those.
    db
      .update(vulns)
      .set({
        possibleDuplicateOfId: subquery<string>`(SELECT max(vuln_id) FROM vuln_fingerprints WHERE organization_id = ${organizationId}
          AND fingerprint = ${key} AND vuln_id < ${vulnId})`,
        possibleDuplicateScore: SAME_FILE_SCORE,
      })
      .where(
        and(
          eq(vulns.id, vulnId),
          eq(vulns.organizationId, organizationId),
          guard,
          subquery`EXISTS (SELECT 1 FROM vuln_fingerprints WHERE organization_id = ${organizationId} AND fingerprint = ${key} AND vuln_id < ${vulnId})`,
        ),
      ),
    // The later reports that already held it.
    db
      .update(vulns)
      .set({ possibleDuplicateOfId: vulnId, possibleDuplicateScore: SAME_FILE_SCORE })
      .where(
        and(
          eq(vulns.organizationId, organizationId),
          sql`${vulns.id} > ${vulnId}`,
          subquery`${vulns.id} IN ${holders}`,
          guard,
          exists(vulnId, organizationId),
        ),
      ),
  ];
}
