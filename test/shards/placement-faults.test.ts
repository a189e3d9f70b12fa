import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api, get } from "../helpers/api";
import { failingBatch } from "../helpers/d1-faults";
import { expectedErrorLogs } from "../helpers/logs";
import { operatorKey } from "../helpers/factories";
import { tenantBindings } from "../helpers/shards";

// A new organization is placed in the catalog (its shard, a copy of its row) before its shard's batch
// writes it. Whatever D1 call fails, the catalog never names an organization no shard has: the client's
// retry with the same slug then makes it, once.

const create = (key: string, slug: string, fault?: D1Database) =>
  api("POST", "/v1/organizations", {
    key,
    body: { data: { type: "organization", attributes: { name: `Org ${slug}`, slug } } },
    ...(fault && { env: { DB: fault } }),
  });

/** Where the catalog and the shards hold an organization of this slug: its tenants row, its copy, its rows. */
async function traces(slug: string) {
  const copy = await env.CATALOG.prepare("SELECT id FROM organizations WHERE slug = ?").bind(slug).first<{ id: string }>();
  const placed = copy
    ? await env.CATALOG.prepare("SELECT shard FROM tenants WHERE organization_id = ?").bind(copy.id).first("shard")
    : null;
  let inShards = 0;
  for (const d1 of Object.values(tenantBindings()))
    inShards += (await d1.prepare("SELECT count(*) AS n FROM organizations WHERE slug = ?").bind(slug).first<number>("n"))!;
  const name = await env.CATALOG.prepare("SELECT count(*) AS n FROM catalog_names WHERE kind = 'organization_slug' AND name = ?")
    .bind(slug)
    .first<number>("n");
  return { copy: copy !== null, placed: placed !== null, inShards, name };
}

describe("placing a new organization, killed at each D1 batch", () => {
  it.each(["before", "after"] as const)(
    "leaves the catalog naming only what a shard has, and the retry makes it once (failing %s the batch runs)",
    async (when) => {
      const operator = await operatorKey();
      expectedErrorLogs();
      let failed = 0;
      // The slug's claim, the placement's read and write, the shard's batch, and what follows the answer.
      for (let n = 1; n <= 6; n++) {
        const slug = `placed-${when}-${n}`;
        const res = await create(operator, slug, failingBatch(n, `D1 down at batch ${n}`, when));
        if (res.status === 201) {
          // Made: by a batch whose answer was lost, too (the shard has it, so it stands).
          expect(await traces(slug), `batch ${n}`).toEqual({ copy: true, placed: true, inShards: 1, name: 1 });
          expect((await get(`/v1/organizations/${res.body.data.id}`, operator)).status).toBe(200);
          continue;
        }
        failed++;
        expect(res.status, `batch ${n}`).toBeGreaterThanOrEqual(500);
        expect(await traces(slug), `batch ${n}`).toEqual({ copy: false, placed: false, inShards: 0, name: 0 });
        const retry = await create(operator, slug);
        expect(retry.status, `retry after batch ${n}`).toBe(201);
        expect(await traces(slug)).toEqual({ copy: true, placed: true, inShards: 1, name: 1 });
      }
      // Before it runs, each of the first three fails the create; after, so do the claim's and the placement's.
      expect(failed).toBeGreaterThanOrEqual(when === "before" ? 4 : 3);
    },
  );
});
