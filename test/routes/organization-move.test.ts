import { describe, expect, it } from "vitest";
import { api, get, post } from "../helpers/api";
import { organization } from "../helpers/factories";
import { sharded, shardOf } from "../helpers/shards";

// An organization's move between tenant databases: one database (DB) has no other to move it to, and its
// move's operations say so. The moves themselves are tested in test/shards/move*.test.ts; here, in a sharded
// world, one starts and is cancelled.

describe("an organization's move", () => {
  it("answers 409 in a deployment of one database, and changes nothing; in a sharded one, starts and can be cancelled", async () => {
    const org = await organization();
    const to = sharded() ? ((await shardOf(org.id)) === "TENANT_1" ? "TENANT_2" : "TENANT_1") : "TENANT_2";
    const started = await post(`/v1/organizations/${org.id}/move`, org.operatorKey, {
      data: { type: "organization_move", attributes: { to } },
    });
    const shown = await get(`/v1/organizations/${org.id}/move`, org.operatorKey);
    const cancelled = await api("DELETE", `/v1/organizations/${org.id}/move`, { key: org.operatorKey });
    if (sharded()) {
      expect([started.status, shown.status, cancelled.status]).toEqual([201, 200, 200]);
      let step = cancelled.body.data.attributes.step;
      while (step === "rolling_back")
        step = (await api("DELETE", `/v1/organizations/${org.id}/move`, { key: org.operatorKey })).body.data.attributes.step;
      expect(step).toBe("rolled_back");
      expect((await post("/v1/policies", org.key, { data: { type: "policy", attributes: { name: "Still writable" } } })).status).toBe(201);
    } else {
      expect([started.status, shown.status, cancelled.status]).toEqual([409, 409, 409]);
      expect(started.body.errors[0].detail).toMatch(/one database/);
      expect((await post("/v1/policies", org.key, { data: { type: "policy", attributes: { name: "Still writable" } } })).status).toBe(201);
    }
  });
});
