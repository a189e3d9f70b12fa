// Seeds organizations with many vulns straight into a SQLite file laid out by the migrations: one
// transaction, prepared statements, ~100k vulns in seconds. Rows are written into whatever columns the
// tables have now, and a column the schema requires that the seeder does not fill stops it with a message
// naming the column, rather than a half-seeded database. What the API derives from the rows (the
// per-organization counts behind list totals) is checked in `checkDerived`, the one place to change when
// the schema grows such a table.
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import { generateApiKey, randomSecret, sha256Hex } from "../src/lib/crypto.ts";
import { shortcode, uuidv7, vulnShortcode } from "../src/lib/ids.ts";

export interface OrganizationPlan {
  slug: string;
  vulns: number;
  /** API keys to make: the per-key rate limit is per minute, so load spreads over several. */
  keys: number;
  /**
   * The vulns as the API leaves them the moment it has created them: inbox dispatching, no intake
   * record yet, each with its Vuln::Created event in the outbox, unprocessed and never sent. The
   * cron's outbox sweep then hands them all to the queue at once, which is how the bench makes many
   * webhook deliveries due at one moment without timing the creates. Their titles hold the slug.
   */
  backlog?: boolean;
  /**
   * Each stored vuln also gets the similarity rows the intake would have written (signature, LSH bands,
   * fingerprints), from a varied text of its own (bench/duplicates.ts): what the duplicates part reads.
   */
  similarity?: boolean;
}

export interface SeededOrganization {
  id: string;
  slug: string;
  vulns: number;
  keys: string[];
  briefId: string;
  briefShortcode: string;
}

export interface Seeded {
  organizations: SeededOrganization[];
  directorySlug: string;
}

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** Whether a seeded report has a running deadline past due at `now`, as the API would mark it. */
function overdueAt(now: number, created: number, closed: boolean, acknowledged: boolean): number {
  const past = (hours: number) => created + hours * HOUR <= now;
  return (!acknowledged && past(TARGETS.acknowledge_hours)) || (!closed && past(TARGETS.triage_hours)) || past(TARGETS.disclosure_days * 24)
    ? 1
    : 0;
}

/** The promises seeded reports keep: the API's defaults (src/db/schema/vulns.ts) with a 90-day timeline. */
const TARGETS = {
  acknowledge_hours: 72,
  triage_hours: 240,
  resolve_days: { critical: 15, high: 30, medium: 60, low: 90, none: 90 },
  disclosure_days: 90,
};
const DOMAINS_PER_ORGANIZATION = 10;

/**
 * UUIDv7s whose time is `ms`, so seeded ids sort like their created_at, as the API's own do. Random bits
 * cost ~10 µs a call here, so one family shares them: its ids differ by time alone, one per millisecond.
 */
function idsAt(): (ms: number) => string {
  const tail = uuidv7().slice(13);
  return (ms) => {
    const hex = ms.toString(16).padStart(12, "0");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}${tail}`;
  };
}

// Crockford's base32 as in the API's shortcodes.
const SHORTCODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** Vuln shortcodes of the API's form: a random prefix per organization, then the index (up to 32^4). */
function vulnCodes(): (i: number) => string {
  const prefix = vulnShortcode().slice(0, 10);
  return (i) => prefix + Array.from({ length: 4 }, (_, k) => SHORTCODE_ALPHABET[Math.floor(i / 32 ** (3 - k)) % 32]).join("");
}

/** Inserts rows into the columns a table has now; statements are prepared once per table and column set. */
export class RowWriter {
  private readonly columns = new Map<string, { name: string; required: boolean }[]>();
  private readonly statements = new Map<string, { statement: StatementSync; names: string[] }>();

  private readonly db: DatabaseSync;
  /** The file whose rows these are, named when the schema asks for more than it writes. */
  private readonly writer: string;

  constructor(db: DatabaseSync, writer = "bench/seed.ts") {
    this.db = db;
    this.writer = writer;
  }

  insert(table: string, row: Record<string, unknown>): void {
    const signature = `${table}:${Object.keys(row).join(",")}`;
    let prepared = this.statements.get(signature);
    if (!prepared) {
      const columns = this.columnsOf(table);
      const missing = columns.filter((c) => c.required && row[c.name] === undefined).map((c) => `${table}.${c.name}`);
      if (missing.length)
        throw new Error(`${this.writer} does not fill ${missing.join(", ")}, which the schema now requires: add it there.`);
      const names = columns.map((c) => c.name).filter((n) => row[n] !== undefined);
      const sql = `INSERT INTO "${table}" (${names.map((n) => `"${n}"`).join(", ")}) VALUES (${names.map(() => "?").join(", ")})`;
      prepared = { statement: this.db.prepare(sql), names };
      this.statements.set(signature, prepared);
    }
    prepared.statement.run(...prepared.names.map((n) => sqlValue(row[n])));
  }

  /** The SQL that created an index, or null when there is none of that name. */
  sqlOf(index: string): string | null {
    return (
      (this.db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").get(index) as { sql: string } | undefined)?.sql ??
      null
    );
  }

  /** Runs a statement of the writer's own (an INSERT ... SELECT that writes many rows in one step), prepared once. */
  run(sql: string, ...params: SQLInputValue[]): void {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = { statement: this.db.prepare(sql), names: [] };
      this.statements.set(sql, prepared);
    }
    prepared.statement.run(...params);
  }

  private columnsOf(table: string) {
    let cols = this.columns.get(table);
    if (!cols) {
      const info = this.db.prepare(`PRAGMA table_info("${table}")`).all() as {
        name: string;
        notnull: number;
        dflt_value: unknown;
        pk: number;
      }[];
      if (info.length === 0) throw new Error(`${this.writer} writes table ${table}, which the schema no longer has.`);
      cols = info.map((c) => ({ name: c.name, required: c.notnull === 1 && c.dflt_value === null }));
      this.columns.set(table, cols);
    }
    return cols;
  }
}

function sqlValue(v: unknown): SQLInputValue {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v !== null && typeof v === "object") return JSON.stringify(v);
  return v as SQLInputValue;
}

/**
 * The tables the API keeps from other rows, which must agree with the seeded rows exactly: the one place
 * to change when the schema grows another. `vuln_counts` is kept by triggers on `vulns`, so seeding fills
 * it as it goes; this checks every bucket against the rows, and stops the seeder if they ever disagree
 * (say, once counts are written by the application instead: then recount them here). A table whose name
 * says it counts something and that is not listed here stops the seeder too.
 */
export function checkDerived(db: DatabaseSync): void {
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
  const kept: Record<string, (db: DatabaseSync) => void> = { vuln_counts: checkVulnCounts };
  const unknown = tables.filter((t) => /count/i.test(t) && !kept[t]);
  if (unknown.length) throw new Error(`bench/seed.ts does not keep ${unknown.join(", ")} exact: add it to checkDerived.`);
  for (const t of tables) kept[t]?.(db);
}

/** Buckets are "all" or "<column>:<value>", per organization and for "*" (every organization). */
function checkVulnCounts(db: DatabaseSync): void {
  // table_xinfo: generated columns (such as `unread`) name buckets too.
  const columns = new Set((db.prepare(`PRAGMA table_xinfo("vulns")`).all() as { name: string }[]).map((c) => c.name));
  const buckets = db.prepare("SELECT organization_id, bucket, count FROM vuln_counts").all() as {
    organization_id: string;
    bucket: string;
    count: number;
  }[];
  const organizations = db.prepare("SELECT organization_id, count(*) AS n FROM vulns GROUP BY 1").all() as {
    organization_id: string;
    n: number;
  }[];
  const wrong: string[] = [];
  for (const { organization_id, n } of organizations) {
    if (!buckets.some((b) => b.organization_id === organization_id && b.bucket === "all"))
      wrong.push(`${organization_id}/all missing (${n} vulns)`);
  }
  for (const b of buckets) {
    const [column, value] =
      b.bucket === "all" ? [null, null] : [b.bucket.slice(0, b.bucket.indexOf(":")), b.bucket.slice(b.bucket.indexOf(":") + 1)];
    if (column !== null && !columns.has(column))
      throw new Error(`vuln_counts bucket ${b.bucket} names no column of vulns: update bench/seed.ts.`);
    const where = [b.organization_id === "*" ? null : "organization_id = ?", column === null ? null : `"${column}" = ?`].filter(Boolean);
    const params = [b.organization_id === "*" ? null : b.organization_id, value].filter((p): p is string => p !== null);
    const actual = (
      db.prepare(`SELECT count(*) AS n FROM vulns${where.length ? ` WHERE ${where.join(" AND ")}` : ""}`).get(...params) as { n: number }
    ).n;
    if (actual !== b.count) wrong.push(`${b.organization_id}/${b.bucket} is ${b.count}, rows say ${actual}`);
  }
  if (wrong.length)
    throw new Error(`vuln_counts disagrees with the seeded vulns (${wrong.slice(0, 5).join("; ")}): recount it in bench/seed.ts.`);
}

/** One organization with a published policy and brief, domain assets, keys, and `plan.vulns` stored vulns. */
async function seedOrganization(w: RowWriter, plan: OrganizationPlan, now: number): Promise<SeededOrganization & { policyId: string }> {
  const at = new Date(now - 400 * DAY).toISOString();
  const published = new Date(now - 30 * DAY).toISOString();
  const id = uuidv7();
  w.insert("organizations", {
    id,
    name: `Bench ${plan.slug}`,
    slug: plan.slug,
    website_url: `https://${plan.slug}.example`,
    claimed: true,
    created_at: at,
    updated_at: at,
  });

  const domains = Array.from({ length: DOMAINS_PER_ORGANIZATION }, (_, i) => ({ id: uuidv7(), value: `app${i}.${plan.slug}.example` }));
  for (const d of domains)
    w.insert("assets", {
      id: d.id,
      organization_id: id,
      kind: "domain",
      value: d.value,
      short_description: null,
      created_at: at,
      updated_at: at,
    });
  const scope = domains.map((d) => ({ id: uuidv7(), kind: "domain", value: d.value, short_description: null }));

  const policyId = uuidv7();
  w.insert("policies", {
    id: policyId,
    organization_id: id,
    name: `${plan.slug} disclosure policy`,
    short_description: "Report issues in our web properties.",
    point_of_contact: `security@${plan.slug}.example`,
    cvd_timeline: 90,
    safe_harbor: "full",
    offers_bounty: false,
    offers_swag: true,
    hall_of_fame: true,
    contact_url: `https://${plan.slug}.example/security`,
    securitytxt_url: null,
    public_disclosure: true,
    published_at: published,
    shortcode: shortcode(),
    in_scope_assets: scope,
    out_of_scope_assets: [],
    created_at: at,
    updated_at: at,
  });
  const briefId = uuidv7();
  const briefShortcode = shortcode();
  w.insert("briefs", {
    id: briefId,
    organization_id: id,
    policy_id: policyId,
    name: "Report a vulnerability",
    short_description: `Found an issue in ${plan.slug}?`,
    shortcode: briefShortcode,
    published_at: published,
    in_scope_assets: scope,
    out_of_scope_assets: [],
    created_at: at,
    updated_at: at,
  });

  const keys: string[] = [];
  for (let i = 0; i < plan.keys; i++) {
    const key = generateApiKey();
    keys.push(key);
    w.insert("api_keys", {
      id: uuidv7(),
      organization_id: id,
      kind: "organization",
      name: `bench ${i}`,
      key_hash: await sha256Hex(key),
      key_prefix: key.slice(0, 8),
      revoked_at: null,
      created_at: at,
      updated_at: at,
    });
  }

  const idAt = idsAt();
  const eventIdAt = idsAt();
  // Loaded only when asked for: it brings src/lib/similarity through the TypeScript import hook.
  const similarity = plan.similarity ? (await import("./similarity-seed.ts")).similaritySeeder(w, id) : null;
  const codeAt = vulnCodes();
  // One a minute back from now: the newest page is the most recent, as in a live inbox. A backlog is
  // one a millisecond, ending two minutes ago, so the sweep (which leaves the last minute's events to
  // the messages the API sent) takes all of it.
  for (let i = 0; i < plan.vulns; i++) {
    const ms = plan.backlog ? now - 120_000 - (plan.vulns - i) : now - (plan.vulns - i) * 60_000;
    const created = new Date(ms).toISOString();
    const domain = domains[i % domains.length]!;
    const vulnId = idAt(ms);
    const title = `Bench vuln ${i} in ${plan.slug}`;
    const description = `Reflected XSS in the search form of ${domain.value} (seeded report ${i}).`;
    const contact = `researcher${i % 97}@example.net`;
    const submission = { title, description, contact_email: contact, domains: [domain.value], received_at: created };
    const tags = i % 3 === 0 ? ["xss"] : [];
    const shortcode = codeAt(i);
    const closed = i % 5 === 0 && !plan.backlog;
    w.insert("vulns", {
      id: vulnId,
      organization_id: id,
      brief_id: briefId,
      shortcode,
      title,
      description,
      contact_email: contact,
      tags,
      inbox_state: plan.backlog ? "dispatching" : "stored",
      processing_state: closed ? "closed" : "open",
      // One in five resolved two hours in; half acknowledged within the hour; the rest new. The promises
      // are the defaults with the policy's 90-day timeline, due from the report's arrival.
      triage_state: closed ? "resolved" : "new",
      acknowledged_at: closed || i % 2 === 0 ? new Date(ms + HOUR).toISOString() : null,
      closed_at: closed ? new Date(ms + 2 * HOUR).toISOString() : null,
      closed_by: closed ? "organization" : null,
      targets: TARGETS,
      acknowledge_due_ms: ms + TARGETS.acknowledge_hours * HOUR,
      triage_due_ms: ms + TARGETS.triage_hours * HOUR,
      disclosure_due_ms: ms + TARGETS.disclosure_days * DAY,
      // Past due as of seeding: unacknowledged after 72 h, untriaged and open after 240 h, or 90 days
      // without an advisory (every report: none is published).
      overdue: overdueAt(now, ms, closed, closed || i % 2 === 0),
      read_at: i % 2 === 0 && !plan.backlog ? created : null,
      // Four in five came through the brief with a follow-up token: the reporter spoke last on those.
      follow_up_token_hash: i % 5 === 0 ? null : createHash("sha256").update(`${vulnId} token`).digest("hex"),
      revision: 0,
      submission,
      created_at: created,
      updated_at: created,
    });
    w.insert("vuln_assets", { vuln_id: vulnId, asset_id: domain.id });
    if (plan.backlog) {
      // The body the API's outbox builds for Vuln::Created, key for key, from the row just written.
      const payload = {
        vuln: {
          id: vulnId,
          shortcode,
          title,
          description,
          inbox_state: "dispatching",
          processing_state: "open",
          organization_id: id,
          tags,
          assets: [{ id: domain.id, kind: "domain", value: domain.value }],
          created_at: created,
          updated_at: created,
        },
      };
      w.insert("events", {
        id: eventIdAt(ms),
        organization_id: id,
        vuln_id: vulnId,
        type: "Vuln::Created",
        payload,
        created_at: created,
        send_count: 0,
      });
      continue;
    }
    similarity?.add(vulnId, i);
    w.insert("vuln_records", {
      vuln_id: vulnId,
      title,
      description,
      contact_email: contact,
      domains: [domain.value],
      received_at: created,
      sha256: createHash("sha256").update(JSON.stringify(submission)).digest("hex"),
      stored_at: created,
    });
  }
  similarity?.finish();
  return { id, slug: plan.slug, vulns: plan.vulns, keys, briefId, briefShortcode, policyId };
}

/** Seeds the organizations and one directory listing them all (policy and brief), in one transaction. */
export async function seed(db: DatabaseSync, plans: OrganizationPlan[], now = Date.now()): Promise<Seeded> {
  const w = new RowWriter(db);
  const directorySlug = "bench-directory";
  // The rows are consistent by construction (the test checks them with foreign_key_check); checking
  // each reference on insert would double the time.
  db.exec("PRAGMA foreign_keys = OFF");
  db.exec("BEGIN");
  try {
    const at = new Date(now - 400 * DAY).toISOString();
    const directoryId = uuidv7();
    w.insert("directories", {
      id: directoryId,
      name: "Bench directory",
      slug: directorySlug,
      description: "Organizations under load",
      min_maturity_rating: 1,
      created_at: at,
      updated_at: at,
    });
    const organizations: SeededOrganization[] = [];
    for (const plan of plans) {
      const { policyId, ...org } = await seedOrganization(w, plan, now);
      organizations.push(org);
      const listingId = uuidv7();
      w.insert("directory_listings", {
        id: listingId,
        directory_id: directoryId,
        organization_id: org.id,
        visible: true,
        customized: false,
        created_at: at,
        updated_at: at,
      });
      w.insert("directory_listing_items", {
        id: uuidv7(),
        listing_id: listingId,
        listable_type: "Policy",
        listable_id: policyId,
        position: 1,
        created_at: at,
        updated_at: at,
      });
      w.insert("directory_listing_items", {
        id: uuidv7(),
        listing_id: listingId,
        listable_type: "Brief",
        listable_id: org.briefId,
        position: 2,
        created_at: at,
        updated_at: at,
      });
    }
    checkDerived(db);
    db.exec("COMMIT");
    return { organizations, directorySlug };
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  } finally {
    db.exec("PRAGMA foreign_keys = ON");
  }
}

/**
 * A signed-in member of the organization (an owner) and its console session, as signing in leaves them:
 * answers the session cookie's value, for requests that authenticate through the session instead of a key.
 */
export async function seedSession(db: DatabaseSync, organizationId: string, now = Date.now()): Promise<string> {
  const w = new RowWriter(db);
  const secret = randomSecret();
  const at = new Date(now).toISOString();
  const memberId = uuidv7();
  w.insert("members", {
    id: memberId,
    organization_id: organizationId,
    email: `owner-${memberId}@bench.example`,
    name: "Bench owner",
    role: "owner",
    invited_at: at,
    joined_at: at,
    last_sign_in_at: at,
    created_at: at,
    updated_at: at,
  });
  w.insert("sessions", {
    id: uuidv7(),
    token_hash: await sha256Hex(secret),
    member_id: memberId,
    organization_id: organizationId,
    method: "email_link",
    ip: null,
    user_agent: null,
    last_seen_at: at,
    expires_at: new Date(now + 7 * DAY).toISOString(),
    revoked_at: null,
    created_at: at,
  });
  return secret;
}

/** The SQLite file behind local D1 under a `--persist-to` folder (the one database wrangler made there). */
export function localD1File(persistTo: string): string {
  const dir = path.join(persistTo, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  if (files.length !== 1) throw new Error(`Expected one D1 database in ${dir}, found ${files.length}.`);
  return path.join(dir, files[0]!);
}

/**
 * Makes `count` of an organization's reports (its oldest) fall due for the deadline sweep at `atMs`:
 * open and unacknowledged, their acknowledge deadline then (a breach to send), their triage deadline
 * 1,000 days later (so the sweep's next look is far), their next look at `atMs`. Through UPDATE, so the
 * triggers keep the per-state counters.
 */
export function dueForSweep(db: DatabaseSync, organizationId: string, count: number, atMs: number): void {
  db.prepare(
    `UPDATE vulns SET triage_state = 'new', processing_state = 'open', acknowledged_at = NULL, triaged_at = NULL,
       closed_at = NULL, closed_by = NULL, acknowledge_due_ms = ?, triage_due_ms = ?, resolve_due_ms = NULL,
       disclosure_due_ms = NULL, next_alert_ms = ?, overdue = 0
     WHERE id IN (SELECT id FROM vulns WHERE organization_id = ? ORDER BY created_at LIMIT ?)`,
  ).run(atMs, atMs + 1000 * DAY, atMs, organizationId, count);
}
