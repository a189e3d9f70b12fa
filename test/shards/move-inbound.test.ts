import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { replyAddress } from "../../src/notifications/links";
import { testClock } from "../helpers/clock";
import { brief, organization, PUBLISHED } from "../helpers/factories";
import { expectedErrorLogs } from "../helpers/logs";
import { advance, drive, otherShard, processEvents } from "../helpers/move";
import { submitReport } from "../helpers/reporter";
import { shardOf, tenantBindings } from "../helpers/shards";

// A reporter's reply by e-mail while the report's organization moves: the report is in both databases
// then, and neither may take the comment (the fences would drop it); the sending server is told to try
// again, and after the move the reply becomes a comment in the new database, once.

const clock = testClock(Date.parse("2026-03-02T10:00:00.000Z"));
const REPORTER = "finder@researcher.example";

async function deliver(to: string, raw: string): Promise<{ rejected: string | null; failed: boolean }> {
  let rejected: string | null = null;
  const bytes = new TextEncoder().encode(raw);
  const message = {
    from: REPORTER,
    to,
    raw: new Response(bytes).body,
    rawSize: bytes.byteLength,
    headers: new Headers(),
    setReject: (reason: string) => {
      rejected = reason;
    },
  } as unknown as ForwardableEmailMessage;
  const ctx = createExecutionContext();
  const quiet = { send: async () => {}, sendBatch: async () => {} } as unknown as Queue;
  const failed = await Promise.resolve((worker as ExportedHandler<Env>).email!(message, { ...env, EVENTS: quiet }, ctx)).then(
    () => false,
    () => true,
  );
  await waitOnExecutionContext(ctx);
  return { rejected, failed };
}

describe("a reply by e-mail while its organization moves", () => {
  it("is refused for now (the sender tries again), then taken once in the new database", async () => {
    const org = await organization();
    const b = await brief(org, { published_at: PUBLISHED });
    const report = await submitReport(org, { contact_email: REPORTER }, { briefId: b.id, shortcode: b.attributes.shortcode });
    await processEvents(org.id);
    const from = await shardOf(org.id);
    const to = otherShard(from);
    const address = await replyAddress(report.id, report.shortcode);
    const raw = [
      `From: Finder <${REPORTER}>`,
      `To: ${address}`,
      "Subject: Re: your report",
      `Message-ID: <reply-${crypto.randomUUID()}@researcher.example>`,
      "MIME-Version: 1.0",
      "Content-Type: text/plain; charset=utf-8",
      "",
      "It also works on the mobile site.",
    ].join("\r\n");
    const comments = async (shard: string) =>
      (await tenantBindings()
        [shard]!.prepare("SELECT count(*) AS n FROM comments WHERE vuln_id = ?")
        .bind(report.id)
        .first<{ n: number }>())!.n;

    // Copied to the new database, not switched yet.
    let state = (await advance(org, to)).body.data.attributes;
    while (state.step !== "verifying" && state.step !== "switching") {
      if (state.waiting_until) clock.at(Date.parse(state.waiting_until));
      state = (await advance(org, to)).body.data.attributes;
    }
    expect(await comments(to)).toBe(0);
    const logs = expectedErrorLogs();
    expect(await deliver(address, raw)).toEqual({ rejected: null, failed: true });
    expect(logs.map((l) => l.error)).toEqual([`Error: the report's organization is moving to ${to}; the reply waits for the move`]);
    expect([await comments(from), await comments(to)]).toEqual([0, 0]);

    expect((await drive(org, to)).at(-1)!.step).toBe("done");
    expect(await deliver(address, raw)).toEqual({ rejected: null, failed: false });
    expect(await deliver(address, raw)).toEqual({ rejected: null, failed: false });
    expect([await comments(from), await comments(to)]).toEqual([0, 1]);
  });
});
