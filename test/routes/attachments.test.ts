import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { createDb } from "../../src/db";
import { attachments } from "../../src/db/schema";
import { api, BASE, del, get } from "../helpers/api";
import { attachmentBytes, download, organization, organizationWithVuln, upload } from "../helpers/factories";

const MiB = 1024 * 1024;

// The first request of a file starts the Worker and migrates its D1: not part of any one test's time.
beforeAll(() => organization(), 30_000);

const setup = organizationWithVuln;

const sha256 = async (bytes: Uint8Array) =>
  Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
const objectKeys = async (vulnId: string) => (await env.ATTACHMENTS.list({ prefix: `attachments/${vulnId}/` })).objects.map((o) => o.key);
const rows = (vulnId: string, key: string) => get(`/v1/vulns/${vulnId}/attachments`, key).then((r) => r.body.data as { id: string }[]);

/** The error objects without their per-request meta (the request id). */
const errorsOf = (body: { errors: Record<string, unknown>[] }) => body.errors.map(({ meta: _meta, ...error }) => error);

/** Rows made directly, to stand for files already attached (the limits count rows, not bytes sent here). */
async function existingFiles(vulnId: string, organizationId: string, sizes: number[]) {
  for (const byteSize of sizes) {
    const id = crypto.randomUUID();
    await createDb(env.DB)
      .insert(attachments)
      .values({
        id,
        vulnId,
        organizationId,
        filename: "old.bin",
        contentType: "application/octet-stream",
        byteSize,
        sha256: "0".repeat(64),
        uploadedBy: "organization",
        objectKey: `attachments/${vulnId}/${id}`,
        createdAt: new Date().toISOString(),
      });
  }
}

/** A body sent as a stream without Content-Length, as a chunked upload arrives. */
async function chunkedUpload(key: string, vulnId: string, chunks: number, chunkSize: number) {
  const chunk = attachmentBytes(chunkSize);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ < chunks) controller.enqueue(chunk);
      else controller.close();
    },
  });
  const ctx = createExecutionContext();
  const res = await worker.fetch!(
    new Request(`${BASE}/v1/vulns/${vulnId}/attachments?filename=big.bin`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/octet-stream" },
      body,
    }),
    env as never,
    ctx as never,
  );
  const json = await res.json<{ errors?: { code: string }[] }>();
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: json };
}

describe("upload", () => {
  it("stores the raw body and answers the attachment with its SHA-256, size and download link", async () => {
    const { org, vulnId } = await setup();
    const bytes = attachmentBytes(1000);
    const res = await upload(org.key, vulnId, bytes, { filename: "poc.png", contentType: "image/png" });
    expect(res.status).toBe(201);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    const { data } = res.body;
    expect(res.headers.get("Location")).toBe(data.links.self);
    expect(data).toMatchObject({
      type: "attachment",
      attributes: {
        filename: "poc.png",
        content_type: "image/png",
        byte_size: 1000,
        sha256: await sha256(bytes),
        uploaded_by: "organization",
      },
      relationships: { vuln: { data: { type: "vuln", id: vulnId } } },
      links: { self: `/v1/vulns/${vulnId}/attachments/${data.id}` },
      meta: { content_url: `/v1/vulns/${vulnId}/attachments/${data.id}/content` },
    });
    expect(await objectKeys(vulnId)).toEqual([`attachments/${vulnId}/${data.id}`]);
    expect((await get(data.links.self, org.key)).body.data).toEqual(data);
  });

  it("takes a chunked body (no Content-Length) up to the limit", async () => {
    const { org, vulnId } = await setup();
    const res = await chunkedUpload(org.key, vulnId, 4, 64 * 1024);
    expect(res.status).toBe(201);
    expect((res.body as { data: { attributes: { byte_size: number } } }).data.attributes.byte_size).toBe(256 * 1024);
  });

  it("does not change the vuln: no new updated_at", async () => {
    const { org, vulnId } = await setup();
    const before = (await get(`/v1/vulns/${vulnId}`, org.key)).body.data.attributes.updated_at;
    expect((await upload(org.key, vulnId, "log line\n", { filename: "app.log", contentType: "text/plain" })).status).toBe(201);
    expect((await get(`/v1/vulns/${vulnId}`, org.key)).body.data.attributes.updated_at).toBe(before);
  });

  it("replays an upload with the same Idempotency-Key and bytes, and refuses the key with other bytes", async () => {
    const { org, vulnId } = await setup();
    const headers = { "Idempotency-Key": `upload-${vulnId}` };
    const first = await upload(org.key, vulnId, attachmentBytes(300), { filename: "a.bin", headers });
    const again = await upload(org.key, vulnId, attachmentBytes(300), { filename: "a.bin", headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body.data.id).toBe(first.body.data.id);
    const other = await upload(org.key, vulnId, attachmentBytes(300, 9), { filename: "a.bin", headers });
    expect(other.status).toBe(422);
    expect(other.body.errors[0].code).toBe("idempotency_key_reused");
    const renamed = await upload(org.key, vulnId, attachmentBytes(300), { filename: "b.bin", headers });
    expect(renamed.status).toBe(422);
    expect(await rows(vulnId, org.key)).toHaveLength(1);
    expect(await objectKeys(vulnId)).toHaveLength(1);
  });
});

describe("limits: a refusal stores nothing", () => {
  it("413 when Content-Length is over 10 MiB, before anything is read", async () => {
    const { org, vulnId } = await setup();
    const res = await upload(org.key, vulnId, attachmentBytes(10), {
      filename: "x.bin",
      headers: { "Content-Length": String(10 * MiB + 1) },
    });
    expect(res.status).toBe(413);
    expect(res.body.errors[0].code).toBe("payload_too_large");
    expect(res.roundTrips).toBe(1);
    expect(await objectKeys(vulnId)).toEqual([]);
  });

  it("413 when a chunked body streams past 10 MiB, and the partial object is gone", async () => {
    const { org, vulnId } = await setup();
    const res = await chunkedUpload(org.key, vulnId, 11, MiB);
    expect(res.status).toBe(413);
    expect(await objectKeys(vulnId)).toEqual([]);
    expect(await rows(vulnId, org.key)).toEqual([]);
  });

  it("exactly 10 MiB is accepted", async () => {
    const { org, vulnId } = await setup();
    expect((await upload(org.key, vulnId, attachmentBytes(10 * MiB), { filename: "max.bin" })).status).toBe(201);
  });

  it("422 for an empty body", async () => {
    const { org, vulnId } = await setup();
    const res = await upload(org.key, vulnId, new Uint8Array(0), { filename: "empty.txt" });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].detail).toMatch(/empty/);
    const chunked = await chunkedUpload(org.key, vulnId, 0, 1);
    expect(chunked.status).toBe(422);
    expect(await objectKeys(vulnId)).toEqual([]);
  });

  it("422 for a 21st file", async () => {
    const { org, vulnId } = await setup();
    await existingFiles(vulnId, org.id, Array(20).fill(10));
    const res = await upload(org.key, vulnId, "one more", { filename: "21.txt" });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].detail).toMatch(/at most 20 attachments/);
    expect(await objectKeys(vulnId)).toEqual([]);
  });

  it("422 past 50 MiB for the vuln, by Content-Length and by the streamed size", async () => {
    const { org, vulnId } = await setup();
    await existingFiles(vulnId, org.id, [50 * MiB - 100]);
    const res = await upload(org.key, vulnId, attachmentBytes(101), { filename: "over.bin" });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].detail).toMatch(/50 MiB/);
    const chunked = await chunkedUpload(org.key, vulnId, 1, 101);
    expect(chunked.status).toBe(422);
    expect(await objectKeys(vulnId)).toEqual([]);
    expect((await upload(org.key, vulnId, attachmentBytes(100), { filename: "fits.bin" })).status).toBe(201);
  });
});

describe("filename", () => {
  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["only separators", "../../"],
    ["only control characters", "\u0000\u001f\u007f"],
    ["dot-dot", "a/.."],
    ["256 characters", "a".repeat(256)],
  ])("422 at source.parameter filename when %s", async (_case, filename) => {
    const { org, vulnId } = await setup();
    const res = await upload(org.key, vulnId, "x", { filename });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ code: "validation_error", source: { parameter: "filename" } });
    expect(await objectKeys(vulnId)).toEqual([]);
  });

  it("keeps the last path segment, without control characters", async () => {
    const { org, vulnId } = await setup();
    const res = await upload(org.key, vulnId, "x", { filename: "C:\\Users\\me\\../po\u0007c\u202Etxt.exe" });
    expect(res.body.data.attributes.filename).toBe("poctxt.exe");
  });
});

describe("download", () => {
  it("streams the bytes as an attachment that no browser runs as the API's origin", async () => {
    const { org, vulnId } = await setup();
    const bytes = attachmentBytes(5000);
    const made = await upload(org.key, vulnId, bytes, { filename: 'résumé "x".pdf', contentType: "application/pdf" });
    const res = await download(org.key, made.body.data.meta.content_url);
    expect(res.status).toBe(200);
    expect(res.bytes).toEqual(bytes);
    expect(
      Object.fromEntries(
        ["Content-Type", "Content-Length", "Content-Disposition", "X-Content-Type-Options", "Content-Security-Policy", "Cache-Control"].map(
          (h) => [h, res.headers.get(h)],
        ),
      ),
    ).toEqual({
      "Content-Type": "application/pdf",
      "Content-Length": "5000",
      "Content-Disposition": `attachment; filename="r_sum_ _x_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22x%22.pdf`,
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "sandbox",
      "Cache-Control": "no-store",
    });
  });

  it.each([
    ["text/html", "application/octet-stream"],
    ["image/svg+xml", "application/octet-stream"],
    ["application/xhtml+xml", "application/octet-stream"],
    ["text/xml", "application/octet-stream"],
    ["application/javascript", "application/octet-stream"],
    ["text/plain", "text/plain; charset=utf-8"],
    ["image/png", "image/png"],
  ])("an upload typed %s downloads as %s", async (type, served) => {
    const { org, vulnId } = await setup();
    const made = await upload(org.key, vulnId, "<script>alert(1)</script>", { filename: "f", contentType: type });
    expect(made.body.data.attributes.content_type).toBe(type);
    expect((await download(org.key, made.body.data.meta.content_url)).headers.get("Content-Type")).toBe(served);
  });
});

describe("list, show, delete", () => {
  it("lists newest first, by page number and by cursor", async () => {
    const { org, vulnId } = await setup();
    const ids: string[] = [];
    for (const name of ["1.txt", "2.txt", "3.txt"]) ids.push((await upload(org.key, vulnId, name, { filename: name })).body.data.id);
    const first = await get(`/v1/vulns/${vulnId}/attachments?page[size]=2`, org.key);
    expect(first.body.data.map((a: { id: string }) => a.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.meta.page).toMatchObject({ total: 3, total_pages: 2 });
    const cursor = await get(`/v1/vulns/${vulnId}/attachments?page[size]=2&page[after]=`, org.key);
    const next = await get(cursor.body.links.next, org.key);
    expect(next.body.data.map((a: { id: string }) => a.id)).toEqual([ids[0]]);
    const oldest = await get(`/v1/vulns/${vulnId}/attachments?sort=created_at`, org.key);
    expect(oldest.body.data.map((a: { id: string }) => a.id)).toEqual(ids);
  });

  it("deletes the row and the object", async () => {
    const { org, vulnId } = await setup();
    const made = await upload(org.key, vulnId, "bye", { filename: "bye.txt" });
    expect((await del(made.body.data.links.self, org.key)).status).toBe(204);
    const again = await get(made.body.data.links.self, org.key);
    expect([again.status, again.body.errors[0].code]).toEqual([404, "not_found"]);
    expect(await objectKeys(vulnId)).toEqual([]);
  });
});

describe("tenancy and operators", () => {
  it("another organization's vuln is vuln_not_found and its attachment not_found, exactly like missing ones", async () => {
    const { org, vulnId } = await setup();
    const other = await setup();
    const made = await upload(org.key, vulnId, "mine", { filename: "mine.txt" });
    const id = made.body.data.id;
    const missingVuln = "01900000-0000-7000-8000-00000000dead";
    for (const path of [
      `/v1/vulns/${vulnId}/attachments`,
      `/v1/vulns/${vulnId}/attachments/${id}`,
      `/v1/vulns/${vulnId}/attachments/${id}/content`,
    ]) {
      const foreign = await get(path, other.org.key);
      const missing = await get(path.replace(vulnId, missingVuln), other.org.key);
      expect([foreign.status, foreign.body.errors[0].code]).toEqual([404, "vuln_not_found"]);
      expect(errorsOf(foreign.body)).toEqual(errorsOf(missing.body));
    }
    // Through a vuln of its own, another organization's attachment id is simply not there.
    const crossed = await get(`/v1/vulns/${other.vulnId}/attachments/${id}`, other.org.key);
    expect([crossed.status, crossed.body.errors[0].code]).toEqual([404, "not_found"]);
    expect((await del(`/v1/vulns/${other.vulnId}/attachments/${id}`, other.org.key)).status).toBe(404);
    expect((await upload(other.org.key, vulnId, "theirs", { filename: "t.txt" })).status).toBe(404);
    expect(await rows(vulnId, org.key)).toHaveLength(1);
  });

  it("operators read attachments but never upload or delete them", async () => {
    const { org, vulnId } = await setup();
    const made = await upload(org.key, vulnId, "evidence", { filename: "e.txt" });
    expect((await get(made.body.data.links.self, org.operatorKey)).status).toBe(200);
    expect((await download(org.operatorKey, made.body.data.meta.content_url)).status).toBe(200);
    const up = await upload(org.operatorKey, vulnId, "operator", { filename: "o.txt" });
    expect([up.status, up.body.errors[0].code]).toEqual([403, "forbidden"]);
    expect((await del(made.body.data.links.self, org.operatorKey)).status).toBe(403);
    expect(await objectKeys(vulnId)).toEqual([`attachments/${vulnId}/${made.body.data.id}`]);
  });

  it("keyless requests get 401", async () => {
    const { vulnId } = await setup();
    expect((await upload(null, vulnId, "x", { filename: "x", headers: { "CF-Connecting-IP": "203.0.113.77" } })).status).toBe(401);
    expect((await api("GET", `/v1/vulns/${vulnId}/attachments`, { headers: { "CF-Connecting-IP": "203.0.113.78" } })).status).toBe(401);
  });
});
