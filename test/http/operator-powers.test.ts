import { beforeAll, describe, expect, it } from "vitest";
import { api, get } from "../helpers/api";
import { AUTHENTICATED, fixture, label, type Endpoint, type Fixture } from "../helpers/endpoints";

// Every write endpoint against three callers who are not the organization itself: another
// organization's key, an operator on a claimed organization, an operator on an unclaimed one. Each
// gets its expected status, and whoever is refused leaves every record of the organization as it was.

const WRITES = AUTHENTICATED.filter((e) => e.method !== "GET" && !e.shardedOnly);

let claimed: Fixture;
let unclaimed: Fixture;
let other: Fixture;
beforeAll(async () => {
  claimed = await fixture();
  // Shared by the refusals, which change nothing; a write that is allowed gets a fixture of its own.
  unclaimed = await fixture({ claimed: false });
  other = await fixture();
});

// The snapshots are the test's own reads, hundreds a minute with the same keys: not the API's traffic.
const unlimited = { API_RATE_LIMITER: { limit: async () => ({ success: true }) } as RateLimit };

/** Everything the organization has, read back by the operator (whose reads change nothing, not even read_at). */
async function snapshot(f: Fixture): Promise<unknown[]> {
  const op = f.org.operatorKey;
  const paths = [
    `/v1/organizations/${f.org.id}`,
    `/v1/organizations/${f.org.id}/api_keys`,
    `/v1/policies/${f.policyId}`,
    `/v1/assets/${f.assetId}`,
    `/v1/briefs/${f.briefId}`,
    `/v1/briefs/${f.spareBriefId}`,
    `/v1/vulns/${f.vulnId}`,
    `/v1/webhooks/${f.webhookId}`,
    `/v1/webhooks/${f.webhookId}/deliveries`,
    `/v1/directories/${f.directoryId}`,
    `/v1/directory_listings/${f.listingId}`,
    `/v1/directory_listings/${f.listingId}/items`,
  ];
  const reads = await Promise.all(paths.map((p) => get(p, op, { env: unlimited })));
  // The organization's own lists: a refused create must not have added anything to them.
  const lists = await Promise.all(
    ["/v1/policies", "/v1/assets", "/v1/briefs", "/v1/vulns", "/v1/webhooks", "/v1/directory_listings"].map((p) =>
      get(p, f.org.key, { env: unlimited }),
    ),
  );
  return [...reads, ...lists].map((r) => [r.status, r.body]);
}

const success = (e: Endpoint) => e.success ?? (e.method === "POST" ? 201 : e.method === "DELETE" ? 204 : 200);

/** Another organization's key: 403 where only operators go, 404 for a record it cannot see, 422 for a create naming another organization's. */
const otherExpected = (e: Endpoint) => (e.operatorOnly ? 403 : e.owned || e.ownedBy ? 404 : 422);

function operatorExpected(e: Endpoint, isClaimed: boolean): number {
  if (e.operator === "any") return success(e);
  if (e.operator === "unclaimed") return isClaimed ? 403 : success(e);
  return 403;
}

it("every write endpoint says what an operator may do there", () => {
  expect(WRITES.filter((e) => e.operator === undefined).map(label)).toEqual([]);
  expect(WRITES.length).toBeGreaterThan(25);
});

describe.each(WRITES.map((e) => [label(e), e] as const))("%s", (_name, e) => {
  async function expectRefused(f: Fixture, key: string, status: number) {
    const before = await snapshot(f);
    const res = await api(e.method, e.path(f), { key, body: e.body?.(f) });
    expect(res.status).toBe(status);
    if (status === 403) {
      expect(res.body.errors[0]).toMatchObject({ status: "403", code: "forbidden" });
      expect(res.body.errors[0].detail).toMatch(/operator/i);
    }
    expect(await snapshot(f)).toEqual(before);
  }

  async function expectAllowed(isClaimed: boolean) {
    const f = await fixture(isClaimed ? {} : { claimed: false });
    const res = await api(e.method, e.path(f), { key: f.org.operatorKey, body: e.body?.(f) });
    expect([res.status, res.text.slice(0, 300)]).toEqual([success(e), expect.any(String)]);
  }

  it(`another organization's key: ${otherExpected(e)}, nothing changed`, async () => {
    await expectRefused(claimed, other.org.key, otherExpected(e));
  });

  for (const isClaimed of [true, false]) {
    const status = operatorExpected(e, isClaimed);
    it(`an operator on ${isClaimed ? "a claimed" : "an unclaimed"} organization: ${status}`, async () => {
      if (status === 403) await expectRefused(isClaimed ? claimed : unclaimed, claimed.org.operatorKey, 403);
      else await expectAllowed(isClaimed);
    });
  }
});

describe("the 403 says why", () => {
  it("names the rule for a claimed organization's policy", async () => {
    const res = await api("PATCH", `/v1/policies/${claimed.policyId}`, {
      key: claimed.org.operatorKey,
      body: { data: { type: "policy", attributes: { name: "X" } } },
    });
    expect(res.body.errors[0].detail).toBe("Operator keys may change the policies of unclaimed organizations only.");
  });

  it("a claim ends the operator's writes, and an unclaim restores them", async () => {
    const f = await fixture({ claimed: false });
    const rename = (name: string) =>
      api("PATCH", `/v1/assets/${f.assetId}`, {
        key: f.org.operatorKey,
        body: { data: { type: "asset", attributes: { short_description: name } } },
      });
    expect((await rename("before the claim")).status).toBe(200);
    await api("PATCH", `/v1/organizations/${f.org.id}`, {
      key: f.org.operatorKey,
      body: { data: { type: "organization", attributes: { claimed: true } } },
    });
    expect((await rename("after the claim")).status).toBe(403);
    expect((await get(`/v1/assets/${f.assetId}`, f.org.key)).body.data.attributes.short_description).toBe("before the claim");
  });
});
