import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { vulns } from "./vulns";

/** A report's MinHash signature (128 u32 as base64) and technical fingerprints, written once at intake. */
export const vulnSignatures = sqliteTable("vuln_signatures", {
  vulnId: text("vuln_id")
    .primaryKey()
    .references(() => vulns.id, { onDelete: "cascade" }),
  organizationId: text("organization_id").notNull(),
  version: integer("version").notNull(),
  minhash: text("minhash").notNull(),
  fingerprints: text("fingerprints", { mode: "json" }).$type<string[]>().notNull(),
});

/**
 * The locality-sensitive bands: one row per report and band, keyed `band * 2^32 + bucket`. Two reports
 * sharing a key are candidates; the lookup seeks each of a report's keys, so it reads a bounded number
 * of rows whatever the organization's size. Ids are UUIDv7, so `vuln_id DESC` is newest first.
 */
export const vulnLshBands = sqliteTable(
  "vuln_lsh_bands",
  {
    organizationId: text("organization_id").notNull(),
    bandKey: integer("band_key").notNull(),
    vulnId: text("vuln_id")
      .notNull()
      .references(() => vulns.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.bandKey, t.vulnId] }), index("vuln_lsh_bands_vuln_idx").on(t.vulnId)],
);

/** A report's technical fingerprints (16 hex of SHA-256 of "kind:value"), for the exact lookups. */
export const vulnFingerprints = sqliteTable(
  "vuln_fingerprints",
  {
    organizationId: text("organization_id").notNull(),
    fingerprint: text("fingerprint").notNull(),
    vulnId: text("vuln_id")
      .notNull()
      .references(() => vulns.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.fingerprint, t.vulnId] }), index("vuln_fingerprints_vuln_idx").on(t.vulnId)],
);

/** Pairs of the organization's reports found similar, written both ways, with their score and reasons. */
export const vulnSimilarities = sqliteTable(
  "vuln_similarities",
  {
    vulnId: text("vuln_id")
      .notNull()
      .references(() => vulns.id, { onDelete: "cascade" }),
    similarId: text("similar_id")
      .notNull()
      .references(() => vulns.id, { onDelete: "cascade" }),
    organizationId: text("organization_id").notNull(),
    score: real("score").notNull(),
    reasons: text("reasons", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.vulnId, t.similarId] }),
    index("vuln_similarities_score_idx").on(t.vulnId, t.score),
    index("vuln_similarities_similar_idx").on(t.similarId),
  ],
);

export type VulnSimilarityRow = typeof vulnSimilarities.$inferSelect;
