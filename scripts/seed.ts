// Seeds local D1 with the demo organization and its neighbour, idempotently: migrations first (every
// database the configuration binds), then rows with fixed ids (INSERT OR IGNORE), and the demo key, kept
// beside local D1 so the printed curl survives restarts. Sharded (wrangler.toml), each organization goes to
// the shard the platform would place it in and the catalog gets what finds it; with one database (`--config`
// a configuration that binds DB) everything goes to DB.
// `npm run --silent seed [-- --persist-to DIR] [--one-database | --config FILE]` prints the demo key alone on its last line.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { API_KEY_PATTERN, generateApiKey, randomSecret, sha256Hex } from "../src/lib/crypto.ts";
import { ANY_BROWSER, SEED_LINK_HOURS } from "../src/lib/seed-links.ts";
import { roomiestOf } from "../src/db/placement.ts";
import { migrateAll } from "./migrate.ts";
import { flagValue, root, runWranglerAsync, sqlText } from "./wrangler.ts";
import { configOf, d1Target, isSharded, tenantBindings, WRANGLER_TOML } from "./wrangler-layouts.ts";

export const DEMO = {
  organizationId: "01900000-0000-7000-8000-000000000001",
  policyId: "01900000-0000-7000-8000-000000000002",
  briefId: "01900000-0000-7000-8000-000000000003",
  keyId: "01900000-0000-7000-8000-000000000004",
  briefShortcode: "DEMX-0001",
  policyShortcode: "DEMX-0002",
  directoryId: "01900000-0000-7000-8000-000000000005",
  listingId: "01900000-0000-7000-8000-000000000006",
  directorySlug: "demo-directory",
  ownerId: "01900000-0000-7000-8000-000000000009",
  ownerEmail: "owner@demo.test",
};

/**
 * A second organization beside the demo one, with data that looks like it (a published policy and
 * brief of the same names and scope, listed in the same directory), as every test world has: a query
 * that reads across organizations shows it in the demo's answers, not in production.
 */
export const NEIGHBOUR = {
  organizationId: "01900000-0000-7000-8000-0000000000c1",
  policyId: "01900000-0000-7000-8000-0000000000c2",
  briefId: "01900000-0000-7000-8000-0000000000c3",
  listingId: "01900000-0000-7000-8000-0000000000c4",
  briefShortcode: "NBRX-0001",
  policyShortcode: "NBRX-0002",
};

const at = "2026-01-01T00:00:00.000Z";
const scope = (entries: [string, string, string, string | null][]) =>
  sqlText(JSON.stringify(entries.map(([id, kind, value, short_description]) => ({ id, kind, value, short_description }))));

/** An organization's row, written in its shard and (sharded) as the catalog's copy. */
const organizationSql = (id: string, name: string, slug: string, website: string) => `
INSERT OR IGNORE INTO organizations (id, name, slug, website_url, claimed, created_at, updated_at)
  VALUES (${sqlText(id)}, ${sqlText(name)}, ${sqlText(slug)}, ${sqlText(website)}, 1, '${at}', '${at}');`;
const DEMO_ORGANIZATION = organizationSql(DEMO.organizationId, "Demo Security Co", "demo-security-co", "https://demo.example");
const NEIGHBOUR_ORGANIZATION = organizationSql(
  NEIGHBOUR.organizationId,
  "Neighbour Security Co",
  "neighbour-security-co",
  "https://neighbour.example",
);

/** The demo directory: in every database (a sharded deployment keeps it in the catalog and beside each shard's listings). */
const directorySql = () => `
INSERT OR IGNORE INTO directories (id, name, slug, description, min_maturity_rating, created_at, updated_at)
  VALUES (${sqlText(DEMO.directoryId)}, 'Demo directory', ${sqlText(DEMO.directorySlug)}, 'Organizations with a published disclosure policy', 1, '${at}', '${at}');`;

interface SignIn {
  tokenHash: string;
  now: Date;
}

/** The demo organization's rows, in its shard (after the directory its listing names). */
function demoSql(keyHash: string, keyPrefix: string, signIn: SignIn): string {
  const expires = new Date(signIn.now.getTime() + SEED_LINK_HOURS * 3_600_000).toISOString();
  return `${DEMO_ORGANIZATION}
INSERT OR IGNORE INTO policies (id, organization_id, name, short_description, point_of_contact, cvd_timeline, safe_harbor,
    offers_bounty, offers_swag, hall_of_fame, contact_url, securitytxt_url, public_disclosure, published_at, shortcode,
    in_scope_assets, out_of_scope_assets, created_at, updated_at)
  VALUES (${sqlText(DEMO.policyId)}, ${sqlText(DEMO.organizationId)}, 'Demo vulnerability disclosure policy',
    'Report security issues in our web properties. We respond within 3 business days.', 'security@demo.example', 90, 'full',
    0, 1, 1, 'https://demo.example/security', 'https://demo.example/.well-known/security.txt', 1, '${at}',
    ${sqlText(DEMO.policyShortcode)},
    ${scope([
      ["01900000-0000-7000-8000-0000000000a1", "domain", "demo.example", "Main site"],
      ["01900000-0000-7000-8000-0000000000a2", "wildcard_domain", "*.demo.example", "All subdomains"],
    ])},
    ${scope([["01900000-0000-7000-8000-0000000000a3", "domain", "status.demo.example", "Third-party status page"]])},
    '${at}', '${at}');
INSERT OR IGNORE INTO briefs (id, organization_id, policy_id, name, short_description, shortcode, published_at,
    in_scope_assets, out_of_scope_assets, created_at, updated_at)
  VALUES (${sqlText(DEMO.briefId)}, ${sqlText(DEMO.organizationId)}, ${sqlText(DEMO.policyId)}, 'Report a vulnerability',
    'Found a security issue in demo.example? Tell us here.', ${sqlText(DEMO.briefShortcode)}, '${at}',
    ${scope([["01900000-0000-7000-8000-0000000000b1", "domain", "demo.example", null]])}, '[]', '${at}', '${at}');
INSERT OR IGNORE INTO directory_listings (id, directory_id, organization_id, visible, customized, created_at, updated_at)
  VALUES (${sqlText(DEMO.listingId)}, ${sqlText(DEMO.directoryId)}, ${sqlText(DEMO.organizationId)}, 1, 0, '${at}', '${at}');
-- The demo items only into a listing that has none: a restart must not undo the user's changes.
INSERT INTO directory_listing_items (id, listing_id, listable_type, listable_id, position, created_at, updated_at)
  SELECT * FROM (VALUES
    ('01900000-0000-7000-8000-000000000007', ${sqlText(DEMO.listingId)}, 'Policy', ${sqlText(DEMO.policyId)}, 1, '${at}', '${at}'),
    ('01900000-0000-7000-8000-000000000008', ${sqlText(DEMO.listingId)}, 'Brief', ${sqlText(DEMO.briefId)}, 2, '${at}', '${at}'))
  WHERE NOT EXISTS (SELECT 1 FROM directory_listing_items WHERE listing_id = ${sqlText(DEMO.listingId)});
INSERT OR REPLACE INTO api_keys (id, organization_id, kind, name, key_hash, key_prefix, revoked_at, created_at, updated_at)
  VALUES (${sqlText(DEMO.keyId)}, ${sqlText(DEMO.organizationId)}, 'organization', 'demo', '${keyHash}',
    ${sqlText(keyPrefix)}, NULL, '${at}', '${at}');
-- The demo owner, and a sign-in link for it that any browser on this machine may use once (see
-- ANY_BROWSER, src/lib/seed-links.ts): the printed link puts a newcomer in the console in one click.
-- Each run adds one (the links of earlier runs stay good until used or expired: a second seed of the
-- same folder, such as npm run seed, must not spend the link npm run dev printed).
INSERT OR IGNORE INTO members (id, organization_id, email, name, role, invited_at, joined_at, last_sign_in_at, created_at, updated_at)
  VALUES (${sqlText(DEMO.ownerId)}, ${sqlText(DEMO.organizationId)}, ${sqlText(DEMO.ownerEmail)}, 'Demo Owner', 'owner', '${at}', '${at}',
    NULL, '${at}', '${at}');
INSERT INTO sign_in_links (token_hash, member_id, browser_hash, expires_at, used_at, created_at)
  VALUES ('${signIn.tokenHash}', ${sqlText(DEMO.ownerId)}, ${sqlText(ANY_BROWSER)}, '${expires}', NULL, '${signIn.now.toISOString()}');
`;
}

/** The neighbour's rows, in its shard (after the directory its listing names). */
function neighbourSql(): string {
  return `${NEIGHBOUR_ORGANIZATION}
INSERT OR IGNORE INTO policies (id, organization_id, name, short_description, point_of_contact, cvd_timeline, safe_harbor,
    offers_bounty, offers_swag, hall_of_fame, contact_url, securitytxt_url, public_disclosure, published_at, shortcode,
    in_scope_assets, out_of_scope_assets, created_at, updated_at)
  VALUES (${sqlText(NEIGHBOUR.policyId)}, ${sqlText(NEIGHBOUR.organizationId)}, 'Demo vulnerability disclosure policy',
    'Report security issues in our web properties.', 'security@neighbour.example', 60, 'partial',
    0, 0, 1, NULL, NULL, 1, '${at}', ${sqlText(NEIGHBOUR.policyShortcode)},
    ${scope([["01900000-0000-7000-8000-0000000000c5", "domain", "demo.example", "Main site"]])}, '[]', '${at}', '${at}');
INSERT OR IGNORE INTO briefs (id, organization_id, policy_id, name, short_description, shortcode, published_at,
    in_scope_assets, out_of_scope_assets, created_at, updated_at)
  VALUES (${sqlText(NEIGHBOUR.briefId)}, ${sqlText(NEIGHBOUR.organizationId)}, ${sqlText(NEIGHBOUR.policyId)}, 'Report a vulnerability',
    'Found a security issue? Tell us here.', ${sqlText(NEIGHBOUR.briefShortcode)}, '${at}',
    ${scope([["01900000-0000-7000-8000-0000000000c6", "domain", "demo.example", null]])}, '[]', '${at}', '${at}');
INSERT OR IGNORE INTO directory_listings (id, directory_id, organization_id, visible, customized, created_at, updated_at)
  VALUES (${sqlText(NEIGHBOUR.listingId)}, ${sqlText(DEMO.directoryId)}, ${sqlText(NEIGHBOUR.organizationId)}, 1, 0, '${at}', '${at}');
INSERT INTO directory_listing_items (id, listing_id, listable_type, listable_id, position, created_at, updated_at)
  SELECT '01900000-0000-7000-8000-0000000000c7', ${sqlText(NEIGHBOUR.listingId)}, 'Policy', ${sqlText(NEIGHBOUR.policyId)}, 1, '${at}', '${at}'
  WHERE NOT EXISTS (SELECT 1 FROM directory_listing_items WHERE listing_id = ${sqlText(NEIGHBOUR.listingId)});
`;
}

type CatalogNameRow = [kind: string, name: string, organizationId: string];

/**
 * The catalog's part of a sharded seed: each organization placed (kept where an earlier run placed it), its
 * row's copy, the directory, and the names that lead to each (slugs, shortcodes, the demo key's SHA-256, the
 * demo owner, this run's sign-in link). Ends with a read of where the two organizations are.
 */
function catalogSql(placed: Record<string, string>, names: CatalogNameRow[]): string {
  const now = new Date().toISOString();
  return `${Object.entries(placed)
    .map(
      ([organizationId, shard]) => `
INSERT OR IGNORE INTO tenants (organization_id, shard, moving_to, created_at, updated_at)
  VALUES (${sqlText(organizationId)}, ${sqlText(shard)}, NULL, '${now}', '${now}');`,
    )
    .join("")}
${DEMO_ORGANIZATION}
${NEIGHBOUR_ORGANIZATION}
${directorySql()}
${names
  .map(
    ([kind, name, organizationId]) => `
INSERT OR IGNORE INTO catalog_names (kind, name, organization_id, created_at) VALUES (${sqlText(kind)}, ${sqlText(name)}, ${sqlText(organizationId)}, '${now}');`,
  )
  .join("")}
SELECT organization_id, shard FROM tenants WHERE organization_id IN (${sqlText(DEMO.organizationId)}, ${sqlText(NEIGHBOUR.organizationId)});
`;
}

/** Where the demo key is kept: beside local D1 (wrangler's default place, or `--persist-to`). */
export function demoKeyFile(persistTo?: string): string {
  return persistTo ? path.resolve(persistTo, "demo-key") : path.join(root, ".wrangler", "demo-key");
}

/** The demo key: read from beside local D1, or made on the first run (deleting .wrangler/ starts afresh). */
function demoKey(keyFile: string): string {
  const existing = existsSync(keyFile) ? readFileSync(keyFile, "utf8").trim() : "";
  if (API_KEY_PATTERN.test(existing)) return existing;
  const key = generateApiKey();
  mkdirSync(path.dirname(keyFile), { recursive: true });
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  return key;
}

/** Where each demo organization is: its tenant database's binding name (DB in a one-database deployment). */
export interface DemoShards {
  demo: string;
  neighbour: string;
}

/** One statement's part of `wrangler d1 execute --json`. */
type Result<T> = { results: T[] };

/**
 * Migrates and seeds local D1 (at persistTo, or wrangler's default place) as the configuration lays it out,
 * and returns the demo key, the path of a fresh sign-in link for the demo owner (used once, by any browser
 * on this machine, under `npm run dev`; its token exists only in this return value), and where each demo
 * organization is. Sharded, the two organizations are placed as the platform places a new one (roomiestOf:
 * the shard with most room, then fewest organizations), each after the other, so with empty shards they
 * land in different ones; a later run keeps them where they are.
 */
export async function seedDemo(
  persistTo?: string,
  config = WRANGLER_TOML,
): Promise<{ key: string; signInPath: string; shards: DemoShards }> {
  const local = d1Target({ target: "--local", config, persistTo });
  const keyFile = demoKeyFile(persistTo);
  const key = demoKey(keyFile);
  const signIn = randomSecret();
  const keyHash = await sha256Hex(key);
  const signInHash = await sha256Hex(signIn);
  await migrateAll({ target: "--local", config, persistTo });
  const dir = path.dirname(keyFile);
  const execute = (binding: string, name: string, sql: string) => {
    const file = path.join(dir, `demo-seed-${name}.sql`);
    writeFileSync(file, sql);
    return runWranglerAsync(["d1", "execute", binding, ...local, "--json", "--file", file]);
  };
  const demo = demoSql(keyHash, key.slice(0, 8), { tokenHash: signInHash, now: new Date() });
  const signInPath = `/console/sign-in/${signIn}`;
  if (!isSharded(config)) {
    await execute("DB", "db", `${directorySql()}\n${demo}\n${neighbourSql()}`);
    return { key, signInPath, shards: { demo: "DB", neighbour: "DB" } };
  }

  const tenantNames = tenantBindings(config);
  const ids = `${sqlText(DEMO.organizationId)}, ${sqlText(NEIGHBOUR.organizationId)}`;
  const [placedBefore, sizes, counts] = JSON.parse(
    await runWranglerAsync([
      "d1",
      "execute",
      "CATALOG",
      ...local,
      "--json",
      "--command",
      `SELECT organization_id, shard FROM tenants WHERE organization_id IN (${ids}); SELECT shard, size_bytes FROM shard_rooms; SELECT shard, count(*) AS n FROM tenants GROUP BY shard;`,
    ]),
  ) as [
    Result<{ organization_id: string; shard: string }>,
    Result<{ shard: string; size_bytes: number }>,
    Result<{ shard: string; n: number }>,
  ];
  const placed: Record<string, string> = Object.fromEntries(placedBefore.results.map((r) => [r.organization_id, r.shard]));
  const held = new Map(counts.results.map((r) => [r.shard, r.n]));
  const room = new Map(sizes.results.map((r) => [r.shard, r.size_bytes]));
  for (const organizationId of [DEMO.organizationId, NEIGHBOUR.organizationId]) {
    if (placed[organizationId]) continue;
    const shard = roomiestOf(tenantNames, room, held);
    placed[organizationId] = shard;
    held.set(shard, (held.get(shard) ?? 0) + 1);
  }
  const names: CatalogNameRow[] = [
    ["organization_slug", "demo-security-co", DEMO.organizationId],
    ["policy", DEMO.policyShortcode, DEMO.organizationId],
    ["brief", DEMO.briefShortcode, DEMO.organizationId],
    ["api_key", keyHash, DEMO.organizationId],
    ["member", DEMO.ownerId, DEMO.organizationId],
    ["sign_in_link", signInHash, DEMO.organizationId],
    ["organization_slug", "neighbour-security-co", NEIGHBOUR.organizationId],
    ["policy", NEIGHBOUR.policyShortcode, NEIGHBOUR.organizationId],
    ["brief", NEIGHBOUR.briefShortcode, NEIGHBOUR.organizationId],
  ];
  // The catalog first, as the platform claims names before it writes what they name; the read at its end
  // says where each organization is, whatever another run placed at the same moment.
  const results = JSON.parse(await execute("CATALOG", "catalog", catalogSql(placed, names))) as Result<{
    organization_id: string;
    shard: string;
  }>[];
  const where = Object.fromEntries(results.at(-1)!.results.map((r) => [r.organization_id, r.shard]));
  const shards: DemoShards = { demo: where[DEMO.organizationId]!, neighbour: where[NEIGHBOUR.organizationId]! };
  await Promise.all(
    tenantNames.map((shard) => {
      const parts = [directorySql(), shards.demo === shard ? demo : "", shards.neighbour === shard ? neighbourSql() : ""];
      return execute(shard, shard.toLowerCase(), parts.join("\n"));
    }),
  );
  return { key, signInPath, shards };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const { key, shards } = await seedDemo(flagValue(args, "--persist-to"), configOf(args));
  console.error(`Demo Security Co is in ${shards.demo}, Neighbour Security Co in ${shards.neighbour}.`);
  console.log(key);
}
