import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { generateToken } from "../../src/lib/crypto";
import { api } from "../helpers/api";
import { AUTHENTICATED, fixture, REPORTER_ENDPOINTS, type Endpoint, type Fixture } from "../helpers/endpoints";
import { nextIp, reporterFixture, type ReporterFixture } from "../helpers/reporter";

// The reporter's generator: every /v1/p/report endpoint without a token, with a malformed, unknown or
// organization's one, and with the token of another report; and the token against every /v1 endpoint.

let mine: ReporterFixture & { internalId: string };
let theirs: ReporterFixture & { internalId: string };
let org: Fixture;

beforeAll(async () => {
  mine = await reporterFixture();
  theirs = await reporterFixture(mine.report.org);
  org = await fixture();
});

/** What the reporter's endpoints of the table name: the comment and the file of the report. */
const named = (f: ReporterFixture) => ({ reportCommentId: f.commentId, reportAttachmentId: f.attachmentId }) as Fixture;

function send(e: Endpoint, f: ReporterFixture, authorization?: string) {
  return api(e.method, e.path(named(f)), {
    // Upload bytes that are JSON text, so every answer of the generator parses.
    ...(e.raw ? { rawBody: '{"more":true}', contentType: "application/json" } : { body: e.body?.(named(f)) }),
    headers: { "CF-Connecting-IP": nextIp(), ...(authorization ? { Authorization: authorization } : {}) },
  });
}

const written = async () =>
  (await env.DB.prepare("SELECT (SELECT count(*) FROM comments) + (SELECT count(*) FROM attachments) AS n").first<{ n: number }>())!.n;

const label = (e: Endpoint) =>
  `${e.method} ${e.path(named({ commentId: "{comment_id}", attachmentId: "{attachment_id}" } as ReporterFixture))}`;

describe.each(REPORTER_ENDPOINTS.map((e) => [label(e), e] as const))("%s", (_, e) => {
  it.each([
    ["no Authorization", undefined],
    ["not Bearer", "Basic dXNlcjpwYXNz"],
    ["a malformed token", "Bearer vdpr_short"],
    ["the right prefix and a random rest", `Bearer ${generateToken("vdpr_")}`],
    ["an organization's API key", "ORG_KEY"],
  ])("%s: 401 with WWW-Authenticate: Bearer, at most one D1 query, nothing written", async (_, authorization) => {
    const before = await written();
    const res = await send(e, mine, authorization === "ORG_KEY" ? `Bearer ${mine.report.org.key}` : authorization);
    expect(res.status).toBe(401);
    expect(res.body.errors[0].code).toBe("unauthorized");
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer\b/);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(res.roundTrips).toBeLessThanOrEqual(1);
    expect(await written()).toBe(before);
  });

  it("another report's token never reaches this report", async () => {
    const res = await send(e, mine, `Bearer ${theirs.report.token}`);
    const distinct = e.path(named(mine)) !== e.path(named(theirs));
    if (distinct) expect(res.status).toBe(404);
    else expect(res.status).toBeLessThan(300);
    for (const id of [mine.report.id, mine.commentId, mine.attachmentId, mine.internalId, theirs.internalId])
      expect(res.text).not.toContain(id);
  });
});

describe("a follow-up token on the organization's API", () => {
  it.each(
    AUTHENTICATED.map((e) => [`${e.method} ${e.path({ org: { id: "{org}" } } as never).replace(/\/[0-9a-f-]{36}/g, "/{id}")}`, e] as const),
  )("%s: 401", async (_, e) => {
    const res = await api(e.method, e.path(org), {
      key: mine.report.token,
      body: e.body?.(org),
      headers: { "CF-Connecting-IP": nextIp() },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer\b/);
  });
});
