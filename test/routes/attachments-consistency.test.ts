import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { createDb } from "../../src/db";
import { attachments } from "../../src/db/schema";
import { del, get } from "../helpers/api";
import { failingBatch, interleaved } from "../helpers/d1-faults";
import { expectedErrorLogs } from "../helpers/logs";
import { download, organization, organizationWithVuln, upload } from "../helpers/factories";
import { waitFor } from "../helpers/wait";

// R2 and D1 are two stores with no transaction between them. The rule: no row without its object, and
// no object readable without its row; what a failure between the two leaves is an orphan object that
// the cron purges once it is an hour old.

// The first request of a file starts the Worker and migrates its D1: not part of any one test's time.
beforeAll(() => organization(), 30_000);

const setup = organizationWithVuln;

const objectKeys = async (vulnId: string) => (await env.ATTACHMENTS.list({ prefix: `attachments/${vulnId}/` })).objects.map((o) => o.key);
const rowCount = async (vulnId: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM attachments WHERE vuln_id = ?").bind(vulnId).first<{ n: number }>())!.n;

/** The bucket with one operation failing, as an R2 outage would. */
function failing(op: "put" | "delete"): R2Bucket {
  return new Proxy(env.ATTACHMENTS, {
    get(target, prop) {
      if (prop === op) return () => Promise.reject(new Error(`R2 ${op} failed (injected)`));
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const discard = { send: async () => {}, sendBatch: async () => {} } as unknown as Queue;

/** The Worker's cron, as Cloudflare runs it each minute. */
async function cron() {
  await worker.scheduled!(createScheduledController(), { ...env, EVENTS: discard } as never);
}

afterEach(() => vi.useRealTimers());

describe("an upload that fails half-way", () => {
  it("R2 refusing the put: 503 with Retry-After, no row, no object", async () => {
    const { org, vulnId } = await setup();
    const logs = expectedErrorLogs();
    const res = await upload(org.key, vulnId, "evidence", { filename: "e.txt", env: { ATTACHMENTS: failing("put") } });
    expect([res.status, res.headers.get("Retry-After")]).toEqual([503, "5"]);
    expect(logs).toEqual([
      expect.objectContaining({ message: "attachment upload to R2 failed", error: expect.stringContaining("R2 put failed") }),
    ]);
    expect(await rowCount(vulnId)).toBe(0);
    expect(await objectKeys(vulnId)).toEqual([]);
  });

  it("D1 failing after the object is stored: no row, and the object is deleted at once", async () => {
    const { org, vulnId } = await setup();
    const logs = expectedErrorLogs();
    // Batch 1 reads the vuln and its usage; batch 2 writes the row.
    const res = await upload(org.key, vulnId, "evidence", {
      filename: "e.txt",
      env: { DB: failingBatch(2, "D1_ERROR: Network connection lost.", "before") },
    });
    expect(res.status).toBe(503);
    expect(logs).toEqual([
      expect.objectContaining({ request_id: res.headers.get("X-Request-Id"), error: expect.stringContaining("Network connection lost") }),
    ]);
    expect(await rowCount(vulnId)).toBe(0);
    expect(await objectKeys(vulnId)).toEqual([]);
  });

  it("D1 and then R2's delete failing: the orphan is unreadable, and the cron purges it after an hour", async () => {
    const { org, vulnId } = await setup();
    const kept = await upload(org.key, vulnId, "kept", { filename: "kept.txt" });
    const logs = expectedErrorLogs();
    const res = await upload(org.key, vulnId, "orphan", {
      filename: "o.txt",
      env: { DB: failingBatch(2, "D1_ERROR: Network connection lost.", "before"), ATTACHMENTS: failing("delete") },
    });
    expect(res.status).toBe(503);
    await waitFor("the failed delete of the orphan to be logged", () =>
      logs.some((l) => l.message === "attachment object not deleted; the cron purges it"),
    );
    const orphan = (await objectKeys(vulnId)).find((k) => !k.endsWith(kept.body.data.id))!;
    expect(orphan).toBeDefined();
    const orphanId = orphan.split("/").at(-1)!;
    expect((await get(`/v1/vulns/${vulnId}/attachments`, org.key)).body.data.map((a: { id: string }) => a.id)).toEqual([kept.body.data.id]);
    expect((await download(org.key, `/v1/vulns/${vulnId}/attachments/${orphanId}/content`)).status).toBe(404);

    await cron();
    expect(await objectKeys(vulnId)).toContain(orphan); // younger than an hour: it may be an upload in flight

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61 * 60 * 1000);
    await cron();
    expect(await objectKeys(vulnId)).toEqual([`attachments/${vulnId}/${kept.body.data.id}`]);
  });

  it("a concurrent upload that filled the vuln first: 422, and this file's object is gone", async () => {
    const { org, vulnId } = await setup();
    const fill = async () => {
      for (let i = 0; i < 20; i++) {
        const id = crypto.randomUUID();
        await createDb(env.DB)
          .insert(attachments)
          .values({
            id,
            vulnId,
            organizationId: org.id,
            filename: "f",
            contentType: "text/plain",
            byteSize: 1,
            sha256: "0".repeat(64),
            uploadedBy: "organization",
            objectKey: `elsewhere/${id}`,
            createdAt: new Date().toISOString(),
          });
      }
    };
    const res = await upload(org.key, vulnId, "late", { filename: "late.txt", env: { DB: interleaved(2, fill) } });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].detail).toMatch(/at most 20/);
    expect(await rowCount(vulnId)).toBe(20);
    expect(await objectKeys(vulnId)).toEqual([]);
  });

  it("a vuln deleted while its file uploaded: 404, no row, no object", async () => {
    const { org, vulnId } = await setup();
    const res = await upload(org.key, vulnId, "late", {
      filename: "late.txt",
      env: { DB: interleaved(2, () => env.DB.prepare("DELETE FROM vulns WHERE id = ?").bind(vulnId).run()) },
    });
    expect([res.status, res.body.errors[0].code]).toEqual([404, "vuln_not_found"]);
    expect(await objectKeys(vulnId)).toEqual([]);
  });
});

describe("deleting a vuln", () => {
  it("deletes its attachments' rows with it, and their objects right after", async () => {
    const { org, vulnId } = await setup();
    const a = await upload(org.key, vulnId, "one", { filename: "1.txt" });
    await upload(org.key, vulnId, "two", { filename: "2.txt" });
    expect(await objectKeys(vulnId)).toHaveLength(2);
    expect((await del(`/v1/vulns/${vulnId}`, org.key)).status).toBe(204);
    expect(await rowCount(vulnId)).toBe(0);
    expect(await objectKeys(vulnId)).toEqual([]);
    expect((await download(org.key, a.body.data.meta.content_url)).status).toBe(404);
  });

  it("leaves nothing readable when R2 fails, and the cron deletes the objects later", async () => {
    const { org, vulnId } = await setup();
    const a = await upload(org.key, vulnId, "one", { filename: "1.txt" });
    const logs = expectedErrorLogs();
    expect((await del(`/v1/vulns/${vulnId}`, org.key, { env: { ATTACHMENTS: failing("delete") } })).status).toBe(204);
    await waitFor("the failed delete of the objects to be logged", () =>
      logs.some((l) => l.message === "attachment objects not deleted; the cron purges them"),
    );
    expect(await objectKeys(vulnId)).toHaveLength(1);
    const res = await download(org.key, a.body.data.meta.content_url);
    expect(res.status).toBe(404);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61 * 60 * 1000);
    await cron();
    expect(await objectKeys(vulnId)).toEqual([]);
  });
});
