import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { buildFixture, type Client } from "../helpers/fixture";
import { api, get, type ApiResponse } from "../helpers/api";
import { ENDPOINTS, type Endpoint, type Fixture, label } from "../helpers/endpoints";
import { operatorKey, organization, type TestOrganization } from "../helpers/factories";
import { nextIp } from "../helpers/reporter";
import { NEIGHBOUR } from "../helpers/world";

// Every write of the API, from the endpoint table: performing it writes exactly the audit rows it
// should (its action, its actor, its target), in its own request's name and its organization's log,
// and nowhere else: the neighbour's log is untouched, and another organization cannot read the rows.

const WRITES = ENDPOINTS.filter((e) => e.method !== "GET" && !e.shardedOnly);

type Row = { id: string; organization_id: string | null; action: string; actor_type: string; actor_id: string | null; target_id: string };

/**
 * The audit rows a request's change wrote, by its X-Request-Id, read from D1 itself. A key's first use
 * from an address also writes `api_key.use_from_new_ip` under the request's id (the fixture's key is
 * first used by the write itself); that row is the key's, not the change's, and has its own tests.
 */
async function rowsOf(res: ApiResponse): Promise<Row[]> {
  const requestId = res.headers.get("X-Request-Id");
  const { results } = await env.DB.prepare(
    "SELECT * FROM audit_events WHERE request_id = ? AND action <> 'api_key.use_from_new_ip' ORDER BY id",
  )
    .bind(requestId)
    .all<Row>();
  return results;
}

async function neighbourLog(): Promise<number> {
  const row = await env.DB.prepare(
    "SELECT count(*) AS n FROM audit_events WHERE organization_id = (SELECT id FROM organizations WHERE slug = ?)",
  )
    .bind(NEIGHBOUR.slug)
    .first<{ n: number }>();
  return row!.n;
}

/** The fixture's client, each fixture from an address of its own: a public submission is limited per address. */
function fromOwnAddress(): Client {
  const ip = nextIp();
  return async (method, path, init = {}) => {
    const res = await api(method, path, {
      key: init.key,
      headers: { "CF-Connecting-IP": ip },
      ...(init.raw ? { rawBody: init.raw.text, contentType: init.raw.type } : { body: init.body }),
    });
    if (res.status >= 300) throw new Error(`fixture: ${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
}

/** Who performs a write: an operator where only one may, the reporter with the token, nobody for the public's. */
function perform(e: Endpoint, f: Fixture): Promise<ApiResponse> {
  const headers = { "CF-Connecting-IP": nextIp() };
  const key = e.operatorOnly ? f.org.operatorKey : e.caller === "reporter" ? f.token! : e.caller === "public" ? null : f.org.key;
  const body = e.body?.(f);
  return e.raw
    ? api(e.method, e.path(f), { key, headers, rawBody: String(body), contentType: "text/plain" })
    : api(e.method, e.path(f), { key, headers, ...(body !== undefined && { body }) });
}

let stranger: TestOrganization;
beforeAll(async () => {
  stranger = await organization();
});

describe("the audit trail of every write", () => {
  it("is declared for every write of the endpoint table", () => {
    expect(WRITES.filter((e) => !e.audit).map(label)).toEqual([]);
  });

  it.each(WRITES.map((e) => [label(e), e] as const))("%s writes its audit row and only it", async (_name, e) => {
    // A fixture of its own: every write changes it, and each starts from one of everything.
    const f = (await buildFixture(fromOwnAddress(), { operatorKey: await operatorKey(), submitted: true })) as Fixture;
    const before = await neighbourLog();
    const res = await perform(e, f);
    expect(res.status, res.text).toBeLessThan(300);
    const created: string | undefined = res.status === 201 ? res.body?.data?.id : undefined;
    const { action, target, organization } = e.audit!;
    const targetId = target?.(f) ?? created ?? e.path(f).match(/[0-9a-f-]{36}(?=\/?(\?|$))/)?.[0];
    const organizationId = organization === "platform" ? null : organization === "created" ? created! : f.org.id;
    const actor = e.operatorOnly
      ? { actor_type: "operator" }
      : e.caller === "reporter"
        ? { actor_type: "reporter", actor_id: f.vulnId }
        : e.caller === "public"
          ? { actor_type: "reporter", actor_id: created }
          : { actor_type: "api_key", actor_id: f.org.keyId };

    const rows = await rowsOf(res);
    expect(rows).toEqual([expect.objectContaining({ action, target_id: targetId, organization_id: organizationId, ...actor })]);
    if (e.operatorOnly) expect(rows[0]!.actor_id).not.toBeNull();
    expect(await neighbourLog()).toBe(before);

    // Readable by its organization (an operator's, for the platform's own), by nobody else.
    const reader = organizationId === null ? f.org.operatorKey : organizationId === f.org.id ? f.org.key : f.org.operatorKey;
    expect((await get(`/v1/audit_events/${rows[0]!.id}`, reader)).status).toBe(200);
    expect((await get(`/v1/audit_events/${rows[0]!.id}`, stranger.key)).status).toBe(404);
    expect((await get(`/v1/audit_events?q[target_id_eq]=${targetId}`, stranger.key)).body.data).toEqual([]);
  });
});
