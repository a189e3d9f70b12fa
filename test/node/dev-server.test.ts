import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, inject, it } from "vitest";
import { waitFor } from "../helpers/wait";
import { jsonApiValidator } from "./jsonapi-schema";

// The README's commands, run as a new user runs them: `npm run dev` serves a seeded demo organization
// and prints a key and a curl that work; `npm run operator-key` makes a key that works until revoked.
// The server is the one global-setup.ts starts for every Node-side file.

const root = path.resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
const { base, port, persistTo, banner: output, logFile } = inject("dev");

async function operatorKey(): Promise<{ id: string; key: string }> {
  const { stdout } = await run(process.execPath, ["scripts/operator-key.ts", "--local", "--persist-to", persistTo], { cwd: root });
  const lines = stdout.trim().split("\n");
  const key = lines.at(-1)!;
  const id = /Operator key ([0-9a-f-]{36})/.exec(stdout)?.[1] ?? "";
  return { id, key };
}

const jsonApi = { "Content-Type": "application/vnd.api+json" };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = async (res: Response): Promise<any> => res.json();

describe("npm run key", () => {
  it("prints the running server's demo key alone, read from beside local D1; says what to do when there is none", async () => {
    const { stdout } = await run(process.execPath, ["scripts/key.ts", "--persist-to", persistTo], { cwd: root });
    expect(stdout).toBe(`${/API key:\s+(vdp_\S+)/.exec(output)![1]}\n`);
    const empty = mkdtempSync(path.join(tmpdir(), "vdp-nokey-"));
    try {
      const missing = await run(process.execPath, ["scripts/key.ts", "--persist-to", empty], { cwd: root }).then(
        () => ({ code: 0, stderr: "" }),
        (err: { code: number; stderr: string }) => err,
      );
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain("run `npm run dev`");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe("npm run dev", () => {
  it("prints no network error and says it fired the first scheduled run once", () => {
    // Read well after start (other tests ran first): every early attempt to fire has settled by now.
    const printed = readFileSync(logFile, "utf8");
    expect(printed).not.toMatch(/ENOTFOUND|getaddrinfo/);
    expect(printed.match(/\[dev\] scheduled handler fired/g)).toHaveLength(1);
  });

  it("says it fires the scheduled handler every minute, and has fired it once it serves", () => {
    expect(output).toMatch(/scheduled handler .* runs every minute/i);
    expect(output).toContain("[dev] scheduled handler fired");
  });

  it("prints a demo key and a curl that works as printed", async () => {
    const key = /API key:\s+(vdp_\S+)/.exec(output)?.[1];
    expect(key).toMatch(/^vdp_[0-9A-Za-z]{43}$/);
    const curl = /Try:\s+curl -s (\S+) -H "Authorization: Bearer (\S+)"/.exec(output);
    expect(curl?.[2]).toBe(key);
    const res = await fetch(curl![1]!.replace("localhost", "127.0.0.1"), { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    const body = await json(res);
    // Other Node-side files share this server and add policies of their own: find the demo's.
    const demo = body.data.find((p: { id: string }) => p.id === "01900000-0000-7000-8000-000000000002");
    expect(demo.attributes).toMatchObject({ name: "Demo vulnerability disclosure policy", maturity_rating: 5 });
  });

  it("serves on the port it was given (as `npm run dev -- --port N`, which the README says), and every link it prints and makes names that port", async () => {
    const readme = readFileSync(path.join(root, "README.md"), "utf8");
    expect(readme).toContain("npm run dev -- --port 8788");
    // This server was started with --port (test/node/global-setup.ts), as npm passes what follows `--`.
    const printed = [...output.matchAll(/https?:\/\/[^\s"]+/g)].map((m) => m[0]);
    expect(printed.length).toBeGreaterThan(5);
    expect(printed.filter((url) => /localhost|127\.0\.0\.1/.test(url) && new URL(url).port !== String(port))).toEqual([]);
    expect(printed).toContain(`http://localhost:${port}/b/DEMX-0001`);
    // What it makes for others to follow (PUBLIC_ORIGIN): the demo organization's security.txt.
    const securityTxt = await (await fetch(`${base}/o/demo-security-co/security.txt`)).text();
    expect(securityTxt).toContain(`Canonical: http://localhost:${port}/o/demo-security-co/security.txt`);
  });

  it("serves the demo brief publicly, from the cache the second time", async () => {
    const first = await fetch(`${base}/v1/p/briefs/DEMX-0001`);
    expect(first.status).toBe(200);
    const second = await fetch(`${base}/v1/p/briefs/DEMX-0001`);
    expect(second.headers.get("X-Cache")).toBe("HIT");
    expect((await json(second)).included.map((r: { type: string }) => r.type).sort()).toEqual(["organization", "policy"]);
  });

  it("seeds idempotently: seeding again keeps the same key, and duplicates nothing", async () => {
    const key = /API key:\s+(vdp_\S+)/.exec(output)![1]!;
    const again = await run(process.execPath, ["scripts/seed.ts", "--persist-to", persistTo], { cwd: root });
    expect(again.stdout.trim().split("\n").at(-1)).toBe(key);
    const auth = { headers: { Authorization: `Bearer ${key}` } };
    // Other files share this server and add records of their own, so count the demo's by their ids.
    const demoIds = [
      "01900000-0000-7000-8000-000000000001",
      "01900000-0000-7000-8000-000000000002",
      "01900000-0000-7000-8000-000000000003",
    ];
    for (const path of ["/v1/organizations", "/v1/policies", "/v1/briefs"]) {
      const ids = (await json(await fetch(`${base}${path}?page[size]=100`, auth))).data.map((r: { id: string }) => r.id);
      expect(ids.filter((id: string) => demoIds.includes(id))).toHaveLength(1);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });
});

describe("a report through the demo brief, as the README walks it", () => {
  it("is received with no key, reaches stored within seconds, is triaged, gets a file, closes and reopens", async () => {
    const key = /API key:\s+(vdp_\S+)/.exec(output)![1]!;
    const auth = { Authorization: `Bearer ${key}` };
    const submitted = await fetch(`${base}/v1/p/briefs/DEMX-0001/vulns`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": "192.0.2.61" },
      body: JSON.stringify({
        data: { type: "vuln", attributes: { title: "Stored XSS", description: "Post a script as a comment.", domains: ["demo.example"] } },
      }),
    });
    expect(submitted.status).toBe(201);
    const id = (await json(submitted)).data.id;

    // The queue consumer and the cron move it along: wait for it, as the README's `until` loop does.
    const inboxState = async () =>
      (await json(await fetch(`${base}/v1/vulns/${id}`, { headers: auth }))).data.attributes.inbox_state as string;
    expect(await waitFor(`vuln ${id} to reach inbox_state stored`, inboxState, (state) => state === "stored", { interval: 200 })).toBe(
      "stored",
    );

    // Triage: one member, the rest unchanged.
    const vector = "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N";
    const triaged = await fetch(`${base}/v1/vulns/${id}`, {
      method: "PATCH",
      headers: { ...auth, "Content-Type": "application/vnd.api+json" },
      body: JSON.stringify({ data: { type: "vuln", id, attributes: { cvss_vector: vector, cwe_ids: ["CWE-79"] } } }),
    });
    expect((await json(triaged)).data.attributes).toMatchObject({
      title: "Stored XSS",
      severity: "medium",
      cvss_score: 6.1,
      cvss_version: "3.1",
      cwe_ids: ["CWE-79"],
    });

    // A file attached with --data-binary and downloaded with -OJ: the same bytes under the same name.
    const poc = new TextEncoder().encode("POST /comments\ncomment=<script>alert(1)</script>\n");
    const uploaded = await fetch(`${base}/v1/vulns/${id}/attachments?filename=poc.txt`, {
      method: "POST",
      headers: { ...auth, "Content-Type": "text/plain" },
      body: poc,
    });
    expect(uploaded.status).toBe(201);
    const file = (await json(uploaded)).data;
    const listed = await json(await fetch(`${base}/v1/vulns/${id}/attachments`, { headers: auth }));
    expect(listed.data.map((a: { id: string }) => a.id)).toEqual([file.id]);
    const downloaded = await fetch(`${base}${file.meta.content_url}`, { headers: auth });
    expect(downloaded.headers.get("Content-Disposition")).toBe(`attachment; filename="poc.txt"; filename*=UTF-8''poc.txt`);
    expect(downloaded.headers.get("Content-Type")).toBe("text/plain; charset=utf-8");
    expect(new Uint8Array(await downloaded.arrayBuffer())).toEqual(poc);
    const digest = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", poc)), (b) => b.toString(16).padStart(2, "0")).join("");
    expect(file.attributes.sha256).toBe(digest);

    for (const processing_state of ["closed", "open"]) {
      const res = await fetch(`${base}/v1/vulns/${id}`, {
        method: "PATCH",
        headers: { ...auth, "Content-Type": "application/vnd.api+json" },
        body: JSON.stringify({ data: { type: "vuln", id, attributes: { processing_state } } }),
      });
      expect((await json(res)).data.attributes.processing_state).toBe(processing_state);
    }
  });
});

describe("webhooks to npm run webhook-receiver", () => {
  it("delivers each event to a local receiver, which verifies every signature", async () => {
    const key = /API key:\s+(vdp_\S+)/.exec(output)![1]!;
    const auth = { Authorization: `Bearer ${key}` };
    const receiverPort = port + 1;
    const types = (await json(await fetch(`${base}/v1/webhook_event_types`, { headers: auth }))).data.map((t: { id: string }) => ({
      type: "trigger_event_type",
      id: t.id,
    }));
    const created = await json(
      await fetch(`${base}/v1/webhooks`, {
        method: "POST",
        headers: { ...auth, ...jsonApi },
        body: JSON.stringify({
          data: {
            type: "webhook",
            attributes: { name: "e2e", url: `http://127.0.0.1:${receiverPort}/` },
            relationships: { trigger_event_types: { data: types } },
          },
        }),
      }),
    );
    const secret = created.data.attributes.secret as string;
    const receiver = spawn(process.execPath, ["scripts/webhook-receiver.ts", "--secret", secret, "--port", String(receiverPort)], {
      cwd: root,
      detached: true,
    });
    let printed = "";
    receiver.stdout!.on("data", (chunk) => (printed += chunk));
    receiver.stderr!.on("data", (chunk) => (printed += chunk));
    try {
      // What the receiver printed last is what a failure shows.
      const until = (text: string) =>
        waitFor(
          `the receiver to print "${text}"`,
          () => printed.slice(-2_000),
          () => printed.includes(text),
        );
      // Verified deliveries of `event` about one report: other files' reports go to this webhook too.
      const verified = (event: string, vulnId: string) =>
        printed.split("\n── ").filter((block) => block.startsWith(`${event}  ✔ signature verified`) && block.includes(vulnId)).length;
      await until("listening");
      const submitted = await json(
        await fetch(`${base}/v1/p/briefs/DEMX-0001/vulns`, {
          method: "POST",
          headers: { "Content-Type": "application/json", "CF-Connecting-IP": "192.0.2.50" },
          body: JSON.stringify({ data: { type: "vuln", attributes: { title: "Webhook e2e", description: "Watch it arrive." } } }),
        }),
      );
      for (const event of ["Vuln::Created", "Vuln::Inbox::Received", "Vuln::Inbox::Stored"])
        await until(`── ${event}  ✔ signature verified`);
      // The reporter's way back, as docs/researchers.md walks it: keep the token, the organization replies to the
      // reporter, the reporter reads the reply (not the internal note) and answers; both comments arrive.
      const token = submitted.data.attributes.follow_up_token as string;
      expect(token).toMatch(/^vdpr_[0-9A-Za-z]{43}$/);
      const asReporter = { Authorization: `Bearer ${token}`, ...jsonApi };
      const comments = `${base}/v1/vulns/${submitted.data.id}/comments`;
      const comment = (body: string, visibility?: string) =>
        JSON.stringify({ data: { type: "comment", attributes: { body, ...(visibility ? { visibility } : {}) } } });
      expect(
        (await fetch(comments, { method: "POST", headers: { ...auth, ...jsonApi }, body: comment("Duplicate of an internal ticket?") }))
          .status,
      ).toBe(201);
      expect(
        (
          await fetch(comments, {
            method: "POST",
            headers: { ...auth, ...jsonApi },
            body: comment("Thanks! Which browsers did you try?", "reporter"),
          })
        ).status,
      ).toBe(201);
      const report = await json(await fetch(`${base}/v1/p/report`, { headers: asReporter }));
      expect(report.data.attributes).toMatchObject({
        shortcode: submitted.data.attributes.shortcode,
        processing_state: "open",
        organization_name: expect.any(String),
      });
      const thread = await json(await fetch(`${base}/v1/p/report/comments`, { headers: asReporter }));
      expect(thread.data.map((c: { attributes: { body: string } }) => c.attributes.body)).toEqual(["Thanks! Which browsers did you try?"]);
      const answered = await fetch(`${base}/v1/p/report/comments`, {
        method: "POST",
        headers: asReporter,
        body: comment("Firefox 140 and Chromium 156."),
      });
      expect((await json(answered)).data.attributes.author).toBe("reporter");
      await until("── Vuln::Comment::Created  ✔ signature verified");
      expect(
        await waitFor(
          "three verified Vuln::Comment::Created deliveries about this report",
          () => verified("Vuln::Comment::Created", submitted.data.id),
          (n) => n >= 3,
        ),
      ).toBe(3);
      await fetch(`${base}/v1/vulns/${submitted.data.id}`, { method: "DELETE", headers: auth });
      await until("── Vuln::Destroyed  ✔ signature verified");
      expect(printed).not.toContain("NOT VERIFIED");
      // Every delivery made so far succeeds: other files' reports in this server go out to this webhook
      // too, so some may still be on their way. Wait for those to leave pending (never to fail).
      const deliveries = `${base}/v1/webhooks/${created.data.id}/deliveries?page[size]=100`;
      const statusOf = async () => {
        const byId = new Map<string, string>();
        for (let next: string | null = deliveries; next; ) {
          const page = await json(await fetch(next, { headers: auth }));
          for (const d of page.data as { id: string; attributes: { status: string } }[]) byId.set(d.id, d.attributes.status);
          next = page.links?.next ? new URL(page.links.next, base).href : null;
        }
        return byId;
      };
      const made = [...(await statusOf()).keys()];
      expect(made.length).toBeGreaterThanOrEqual(4);
      const settled = await waitFor(
        "the webhook's deliveries made so far to leave pending",
        async () => {
          const now = await statusOf();
          return made.map((id) => now.get(id));
        },
        (statuses) => !statuses.includes("pending"),
      );
      expect(new Set(settled)).toEqual(new Set(["succeeded"]));
    } finally {
      if (receiver.pid) process.kill(-receiver.pid, "SIGTERM");
    }
  });
});

describe("npm run operator-key -- --local", () => {
  it("prints a key alone on its last line that works, and stops working once revoked", async () => {
    const operator = await operatorKey();
    expect(operator.key).toMatch(/^vdp_[0-9A-Za-z]{43}$/);
    const auth = { Authorization: `Bearer ${operator.key}` };

    const org = await fetch(`${base}/v1/organizations`, {
      method: "POST",
      headers: { ...auth, ...jsonApi },
      body: JSON.stringify({ data: { type: "organization", attributes: { name: "Acme", slug: `acme-${port}` } } }),
    });
    expect(org.status).toBe(201);
    const orgId = (await json(org)).data.id;

    const made = await fetch(`${base}/v1/organizations/${orgId}/api_keys`, {
      method: "POST",
      headers: { ...auth, ...jsonApi },
      body: JSON.stringify({ data: { type: "api_key" } }),
    });
    const orgKey = (await json(made)).data;
    expect((await fetch(`${base}/v1/policies`, { headers: { Authorization: `Bearer ${orgKey.attributes.key}` } })).status).toBe(200);
    expect((await fetch(`${base}/v1/api_keys/${orgKey.id}`, { method: "DELETE", headers: auth })).status).toBe(204);
    expect((await fetch(`${base}/v1/policies`, { headers: { Authorization: `Bearer ${orgKey.attributes.key}` } })).status).toBe(401);

    // An operator key made by the command can be revoked too (here with a second one).
    const second = await operatorKey();
    expect(
      (await fetch(`${base}/v1/api_keys/${operator.id}`, { method: "DELETE", headers: { Authorization: `Bearer ${second.key}` } })).status,
    ).toBe(204);
    expect((await fetch(`${base}/v1/organizations`, { headers: auth })).status).toBe(401);
  });
});

describe("another process writing local D1 while npm run dev serves", () => {
  it("fails no request: what the local runtime rolls back at that moment runs again", async () => {
    // operator-key --local, as the README has a developer run it beside npm run dev, writes the file
    // the server reads; readers of the server meanwhile get answers, never a 500 or 503. Each reader
    // has a key of its own and keeps well under its limit (600 a minute), so every request reaches D1.
    const operator = { Authorization: `Bearer ${(await operatorKey()).key}`, ...jsonApi };
    const org = await fetch(`${base}/v1/organizations`, {
      method: "POST",
      headers: operator,
      body: JSON.stringify({ data: { type: "organization", attributes: { name: "Readers", slug: `readers-${port}` } } }),
    });
    const orgId = (await json(org)).data.id;
    const keys: string[] = [];
    for (let i = 0; i < 3; i++) {
      const made = await fetch(`${base}/v1/organizations/${orgId}/api_keys`, {
        method: "POST",
        headers: operator,
        body: JSON.stringify({ data: { type: "api_key" } }),
      });
      keys.push((await json(made)).data.attributes.key);
    }
    const statuses: Record<number, number> = {};
    const failures: string[] = [];
    let writing = true;
    const read = async (key: string) => {
      while (writing) {
        const res = await fetch(`${base}/v1/policies?page[size]=1`, { headers: { Authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status >= 500) failures.push(`${res.status}, request ${res.headers.get("X-Request-Id")}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const readers = keys.map(read);
    try {
      for (let i = 0; i < 3; i++) await operatorKey();
    } finally {
      writing = false;
    }
    await Promise.all(readers);
    expect(failures).toEqual([]);
    expect(statuses).toEqual({ 200: expect.any(Number) });
  });
});

describe("JSON:API 1.1 conformance of live responses", () => {
  it("every kind of response validates against the published schema", async () => {
    const validate = jsonApiValidator();
    // The schema must be able to fail: a document with included but no data is not JSON:API.
    expect(validate({ included: [] })).not.toEqual([]);
    expect(validate({ data: { type: "x", id: "1" }, links: { self: "/v1/x/1" } })).toEqual([]);

    const key = /API key:\s+(vdp_\S+)/.exec(output)![1]!;
    const auth = { Authorization: `Bearer ${key}` };
    const policy = await fetch(`${base}/v1/policies`, {
      method: "POST",
      headers: { ...auth, ...jsonApi },
      body: JSON.stringify({ data: { type: "policy", attributes: { name: "Schema" } } }),
    });
    const policyId = (await json(policy.clone())).data.id;
    const responses: [string, Promise<Response> | Response][] = [
      ["create", policy],
      ["list", fetch(`${base}/v1/policies?page[size]=1`, { headers: auth })],
      ["show", fetch(`${base}/v1/policies/${policyId}`, { headers: auth })],
      ["organizations", fetch(`${base}/v1/organizations`, { headers: auth })],
      ["briefs", fetch(`${base}/v1/briefs`, { headers: auth })],
      ["assets (empty)", fetch(`${base}/v1/assets`, { headers: auth })],
      ["public brief with included", fetch(`${base}/v1/p/briefs/DEMX-0001`)],
      ["401", fetch(`${base}/v1/policies`)],
      ["404", fetch(`${base}/v1/nowhere`, { headers: auth })],
      ["405", fetch(`${base}/v1/policies`, { method: "PUT", headers: auth })],
      ["400", fetch(`${base}/v1/policies?sort=name`, { headers: auth })],
      ["415", fetch(`${base}/v1/policies`, { method: "POST", headers: { ...auth, "Content-Type": "text/plain" }, body: "x" })],
      [
        "422",
        fetch(`${base}/v1/policies`, {
          method: "POST",
          headers: { ...auth, ...jsonApi },
          body: JSON.stringify({ data: { type: "policy", attributes: { cvd_timeline: 999 } } }),
        }),
      ],
      [
        "409",
        fetch(`${base}/v1/policies`, {
          method: "POST",
          headers: { ...auth, ...jsonApi },
          body: JSON.stringify({ data: { type: "brief", attributes: {} } }),
        }),
      ],
    ];
    for (const [name, pending] of responses) {
      const res = await pending;
      expect([name, res.headers.get("Content-Type")]).toEqual([name, "application/vnd.api+json"]);
      expect([name, validate(await json(res))]).toEqual([name, []]);
    }
    // The vuln endpoints answer application/json, in the same JSON:API shape.
    const receipt = await fetch(`${base}/v1/p/briefs/DEMX-0001/vulns`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": "192.0.2.99" },
      body: JSON.stringify({ data: { type: "vuln", attributes: { title: "Schema", description: "Check" } } }),
    });
    const vulnId = (await json(receipt.clone())).data.id;
    const plain: [string, Response][] = [
      ["submission receipt", receipt],
      ["vuln list", await fetch(`${base}/v1/vulns`, { headers: auth })],
      ["vuln show", await fetch(`${base}/v1/vulns/${vulnId}`, { headers: auth })],
      ["vuln 404", await fetch(`${base}/v1/vulns/01900000-0000-7000-8000-00000000beef`, { headers: auth })],
    ];
    for (const [name, res] of plain) {
      expect([name, res.headers.get("Content-Type")]).toEqual([name, "application/json"]);
      expect([name, validate(await json(res))]).toEqual([name, []]);
    }
  });
});
