import { describe, expect, it } from "vitest";
import { testClock } from "../helpers/clock";
import { drive, otherShard, richOrganization, rowsIn, snapshot, tenantRow } from "../helpers/move";
import { databaseOf, shardOf, tenantBindings } from "../helpers/shards";

const clock = testClock(Date.parse("2026-03-02T10:00:00.000Z"));

describe("moving an organization to another tenant database", () => {
  it("carries every row of the organization unchanged and leaves none behind", async () => {
    const rich = await richOrganization();
    const from = await shardOf(rich.org.id);
    const to = otherShard(from);
    const before = await snapshot(await databaseOf(rich.org.id), rich.org.id);
    console.log(JSON.stringify(Object.fromEntries(Object.entries(before).map(([t, r]) => [t, r.length]))));
    const states = await drive(rich.org, to);
    console.log(states.map((s) => `${s.step} ${s.table ?? ""} ${s.note ?? ""}`).join("\n"));
    expect(states.at(-1)!.step).toBe("done");
    expect(await tenantRow(rich.org.id)).toEqual({ shard: to, moving_to: null });
    expect(await snapshot(tenantBindings()[to]!, rich.org.id)).toEqual(before);
    expect((await rowsIn(rich.org.id))[from]).toEqual({});
    void clock;
  });
});
