// Where a new organization goes, as a rule over numbers alone: the Worker applies it to what the catalog
// reads (roomiest, src/db/catalog.ts), and `npm run seed` to what it reads of local D1 (scripts/seed.ts), so
// the demo organizations land where the platform would put them. No imports: the scripts load it in plain Node.

/**
 * The shard with the most room by the sizes D1 last reported (one never measured counts as empty); among
 * equals the one holding fewest organizations, then the first named.
 */
export function roomiestOf(
  names: readonly string[],
  sizeBytes: ReadonlyMap<string, number>,
  organizations: ReadonlyMap<string, number>,
): string {
  if (names.length === 0) throw new Error("No tenant database to place an organization in.");
  return [...names].sort(
    (a, b) => (sizeBytes.get(a) ?? 0) - (sizeBytes.get(b) ?? 0) || (organizations.get(a) ?? 0) - (organizations.get(b) ?? 0),
  )[0]!;
}
