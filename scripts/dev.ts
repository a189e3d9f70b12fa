// `npm run dev`: migrates local D1, seeds a demo organization (idempotently), prints a key and curls
// to try, then serves with `wrangler dev`. Arguments after `--` go to wrangler dev (e.g. --port 8788).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { API_KEY_PATTERN, generateApiKey, sha256Hex } from "../src/lib/crypto.ts";
import { root, runWrangler, spawnWrangler, sqlText } from "./wrangler.ts";

const passthrough = process.argv.slice(2);

function portOf(args: string[]): string {
  const at = args.findIndex((a) => a === "--port" || a.startsWith("--port="));
  if (at < 0) return "8787";
  return args[at]!.includes("=") ? args[at]!.split("=")[1]! : (args[at + 1] ?? "8787");
}

export const DEMO = {
  organizationId: "01900000-0000-7000-8000-000000000001",
  policyId: "01900000-0000-7000-8000-000000000002",
  briefId: "01900000-0000-7000-8000-000000000003",
  keyId: "01900000-0000-7000-8000-000000000004",
  briefShortcode: "DEMX-0001",
  policyShortcode: "DEMX-0002",
};

// The demo key lives beside local D1 (both are local state, neither is committed). Reusing it keeps
// the printed curl working across restarts; deleting .wrangler/ starts everything afresh.
const keyFile = path.join(root, ".wrangler", "demo-key");
let key = existsSync(keyFile) ? readFileSync(keyFile, "utf8").trim() : "";
if (!API_KEY_PATTERN.test(key)) {
  key = generateApiKey();
  mkdirSync(path.dirname(keyFile), { recursive: true });
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
}

const at = "2026-01-01T00:00:00.000Z";
const scope = (entries: [string, string, string, string | null][]) =>
  sqlText(JSON.stringify(entries.map(([id, kind, value, short_description]) => ({ id, kind, value, short_description }))));

const seed = `
INSERT OR IGNORE INTO organizations (id, name, slug, website_url, claimed, created_at, updated_at)
  VALUES (${sqlText(DEMO.organizationId)}, 'Demo Security Co', 'demo-security-co', 'https://demo.example', 1, '${at}', '${at}');
INSERT OR IGNORE INTO policies (id, organization_id, name, short_description, point_of_contact, cvd_timeline, safe_harbor,
    offers_bounty, offers_swag, hall_of_fame, contact_url, securitytxt_url, public_disclosure, published_at, shortcode,
    in_scope_assets, out_of_scope_assets, created_at, updated_at)
  VALUES (${sqlText(DEMO.policyId)}, ${sqlText(DEMO.organizationId)}, 'Demo vulnerability disclosure policy',
    'Report security issues in our web properties. We respond within 3 business days.', 'security@demo.example', 90, 'full',
    0, 1, 1, 'https://demo.example/security', 'https://demo.example/.well-known/security.txt', 1, '${at}',
    ${sqlText(DEMO.policyShortcode)},
    ${scope([["01900000-0000-7000-8000-0000000000a1", "domain", "demo.example", "Main site"], ["01900000-0000-7000-8000-0000000000a2", "wildcard_domain", "*.demo.example", "All subdomains"]])},
    ${scope([["01900000-0000-7000-8000-0000000000a3", "domain", "status.demo.example", "Third-party status page"]])},
    '${at}', '${at}');
INSERT OR IGNORE INTO briefs (id, organization_id, policy_id, name, short_description, shortcode, published_at,
    in_scope_assets, out_of_scope_assets, created_at, updated_at)
  VALUES (${sqlText(DEMO.briefId)}, ${sqlText(DEMO.organizationId)}, ${sqlText(DEMO.policyId)}, 'Report a vulnerability',
    'Found a security issue in demo.example? Tell us here.', ${sqlText(DEMO.briefShortcode)}, '${at}',
    ${scope([["01900000-0000-7000-8000-0000000000b1", "domain", "demo.example", null]])}, '[]', '${at}', '${at}');
INSERT OR REPLACE INTO api_keys (id, organization_id, kind, name, key_hash, key_prefix, revoked_at, created_at, updated_at)
  VALUES (${sqlText(DEMO.keyId)}, ${sqlText(DEMO.organizationId)}, 'organization', 'demo', '${await sha256Hex(key)}',
    ${sqlText(key.slice(0, 8))}, NULL, '${at}', '${at}');
`;

console.log("Applying local D1 migrations and seeding the demo organization…");
runWrangler(["d1", "migrations", "apply", "DB", "--local"]);
const seedFile = path.join(root, ".wrangler", "demo-seed.sql");
writeFileSync(seedFile, seed);
runWrangler(["d1", "execute", "DB", "--local", "--file", seedFile]);

const base = `http://localhost:${portOf(passthrough)}`;
console.log(`
  Demo organization "Demo Security Co" is ready.
  API key:       ${key}

  Try:           curl -s ${base}/v1/policies -H "Authorization: Bearer ${key}"
  Public brief:  curl -s ${base}/v1/p/briefs/${DEMO.briefShortcode}
  OpenAPI:       curl -s ${base}/v1/openapi.json
`);

const child = spawnWrangler(["dev", ...passthrough]);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
