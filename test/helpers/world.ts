import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import { api } from "./api";
import { fakeQueue } from "./events";
import { operatorKey } from "./factories";
import { sharded, tenantBindings } from "./shards";

// Every test file's database starts with a neighbour: an organization whose data looks like what the
// tests make (a published policy changed several times, a brief, reports with the factories' titles,
// domains and tags), made through the API and processed by the queue consumer as in production. A
// statement that reads across rows or tenants (a correlated subquery that compares a column with itself,
// a filter left out) then shows it in whatever test runs it, not in production: the neighbour's policy has
// the highest version numbers in the database, so a report bound to "the newest version" of the wrong
// policy gets one of the neighbour's.

export const NEIGHBOUR = {
  slug: "neighbour-security",
  name: "Neighbour Security",
  /** The neighbour's policy changes this many times after it is made: versions 1 to 1 + this. */
  policyChanges: 4,
  domains: ["shop.example.com", "api.example.com"],
  title: "Stored XSS in the profile name",
};

/** Seeds the neighbour once per database (setup files may run more than once for one file). */
export async function seedNeighbour(): Promise<void> {
  const seeded = await (sharded()
    ? env.CATALOG.prepare("SELECT 1 FROM catalog_names WHERE kind = 'organization_slug' AND name = ?")
    : env.DB.prepare("SELECT 1 FROM organizations WHERE slug = ?")
  )
    .bind(NEIGHBOUR.slug)
    .first();
  if (seeded) return;
  const operator = await operatorKey();
  const must = async (what: string, res: Promise<{ status: number; body: any; text: string }>) => {
    const r = await res;
    if (r.status >= 300) throw new Error(`neighbour ${what}: ${r.status} ${r.text}`);
    return r.body?.data;
  };
  const org = await must(
    "organization",
    api("POST", "/v1/organizations", {
      key: operator,
      body: {
        data: { type: "organization", attributes: { name: NEIGHBOUR.name, slug: NEIGHBOUR.slug, website_url: "https://example.com" } },
      },
    }),
  );
  const key = (
    await must(
      "key",
      api("POST", `/v1/organizations/${org.id}/api_keys`, {
        key: operator,
        body: { data: { type: "api_key", attributes: { name: "test" } } },
      }),
    )
  ).attributes.key as string;
  const policy = await must(
    "policy",
    api("POST", "/v1/policies", {
      key,
      body: {
        data: {
          type: "policy",
          attributes: {
            name: "VDP",
            point_of_contact: "security@example.com",
            safe_harbor: "full",
            cvd_timeline: 90,
            public_disclosure: true,
            hall_of_fame: true,
            published_at: "2020-01-01T00:00:00.000Z",
            in_scope_assets: NEIGHBOUR.domains.map((value) => ({ kind: "domain", value })),
          },
        },
      },
    }),
  );
  for (let i = 1; i <= NEIGHBOUR.policyChanges; i++) {
    await must(
      "policy change",
      api("PATCH", `/v1/policies/${policy.id}`, {
        key,
        body: { data: { type: "policy", id: policy.id, attributes: { cvd_timeline: 90 - i, safe_harbor: i % 2 ? "partial" : "full" } } },
      }),
    );
  }
  const brief = await must(
    "brief",
    api("POST", "/v1/briefs", {
      key,
      body: {
        data: {
          type: "brief",
          attributes: { name: "Report a vulnerability", published_at: "2020-01-01T00:00:00.000Z" },
          relationships: { policy: { data: { type: "policy", id: policy.id } } },
        },
      },
    }),
  );
  for (const tags of [["xss"], ["xss", "web"]]) {
    await must(
      "report",
      api("POST", "/v1/vulns", {
        key,
        contentType: "application/json",
        body: {
          data: {
            type: "vuln",
            attributes: { title: NEIGHBOUR.title, description: "Steps to reproduce", domains: NEIGHBOUR.domains, tags },
            relationships: { brief: { data: { type: "brief", id: brief.id } } },
          },
        },
      }),
    );
  }
  await must(
    "public report",
    api("POST", `/v1/p/briefs/${brief.attributes.shortcode}/vulns`, {
      contentType: "application/json",
      headers: { "CF-Connecting-IP": "198.51.100.250" },
      body: {
        data: { type: "vuln", attributes: { title: NEIGHBOUR.title, description: "Set the name to <img src=x onerror=alert(1)>." } },
      },
    }),
  );
  await processOutbox();
}

/** Runs the queue consumer over every unprocessed event, as the Queue would: the reports reach `stored`. */
async function processOutbox(): Promise<void> {
  for (const [shard, d1] of Object.entries(tenantBindings())) await processShardOutbox(shard, d1);
}

async function processShardOutbox(shard: string, d1: D1Database): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const { results } = await d1.prepare("SELECT id FROM events WHERE processed_at IS NULL ORDER BY rowid").all<{ id: string }>();
    if (results.length === 0) return;
    const batch = createMessageBatch(
      "vdp-events",
      results.map((r, i) => ({
        id: `neighbour-${shard}-${round}-${i}`,
        timestamp: new Date(),
        attempts: 1,
        body: { event_id: r.id, ...(sharded() && { shard }) },
      })),
    );
    const ctx = createExecutionContext();
    await (worker as ExportedHandler<Env>).queue!(batch, { ...env, EVENTS: fakeQueue().queue }, ctx);
    await getQueueResult(batch, ctx);
  }
}
