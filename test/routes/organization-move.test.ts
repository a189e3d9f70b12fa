import { describe, expect, it } from "vitest";
import { api, get, post } from "../helpers/api";
import { organization } from "../helpers/factories";

// One database (DB) has no other to move an organization to: the move's operations say so. The moves
// themselves are tested in the sharded world (test/shards/move*.test.ts).

describe("an organization's move in a deployment of one database", () => {
  it("answers 409 to a move, its state and its cancelling, and changes nothing", async () => {
    const org = await organization();
    const started = await post(`/v1/organizations/${org.id}/move`, org.operatorKey, {
      data: { type: "organization_move", attributes: { to: "TENANT_2" } },
    });
    expect(started.status).toBe(409);
    expect(started.body.errors[0].detail).toMatch(/one database/);
    expect((await get(`/v1/organizations/${org.id}/move`, org.operatorKey)).status).toBe(409);
    expect((await api("DELETE", `/v1/organizations/${org.id}/move`, { key: org.operatorKey })).status).toBe(409);
    expect((await post("/v1/policies", org.key, { data: { type: "policy", attributes: { name: "Still writable" } } })).status).toBe(201);
  });
});
