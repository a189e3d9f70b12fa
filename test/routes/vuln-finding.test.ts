import { beforeAll, describe, expect, it } from "vitest";
import { api, get, patch, post } from "../helpers/api";
import { asReporter, reporterUpload, submitReport, type SubmittedReport } from "../helpers/reporter";
import { brief, download, operatorKey, organization, PUBLISHED, vuln, type TestOrganization } from "../helpers/factories";

// How a triager finds a report: by the reference the researcher quotes.

let org: TestOrganization;
let other: TestOrganization;
let briefId: string;
beforeAll(async () => {
  [org, other] = await Promise.all([organization(), organization()]);
  briefId = (await brief(org, { published_at: PUBLISHED })).id;
}, 30_000);

describe("a vuln by its shortcode", () => {
  it("answers wherever the id does: show, update, comments, attachments, delete", async () => {
    const v = await vuln(org, briefId);
    const code = v.attributes.shortcode as string;
    const shown = await get(`/v1/vulns/${code}`, org.key);
    expect([shown.status, shown.body.data.id]).toEqual([200, v.id]);
    // As a person types it after hearing it: lower case, O for 0, I or L for 1.
    const typed = code.toLowerCase().replaceAll("0", "o").replaceAll("1", "l");
    expect((await get(`/v1/vulns/${typed}`, org.key)).body.data?.id).toBe(v.id);

    const edited = await patch(`/v1/vulns/${code}`, org.key, { data: { type: "vuln", attributes: { severity: "high" } } });
    expect([edited.status, edited.body.data.attributes.severity]).toEqual([200, "high"]);
    // A document naming the vuln by id still matches the path's shortcode.
    const named = await patch(`/v1/vulns/${code}`, org.key, { data: { type: "vuln", id: v.id, attributes: { severity: "low" } } });
    expect(named.status).toBe(200);

    const comment = await post(`/v1/vulns/${code}/comments`, org.key, { data: { type: "comment", attributes: { body: "Looking." } } });
    expect(comment.status).toBe(201);
    expect((await get(`/v1/vulns/${code}/comments/${comment.body.data.id}`, org.key)).status).toBe(200);
    expect((await get(`/v1/vulns/${code}/comments`, org.key)).body.data.map((c: { id: string }) => c.id)).toEqual([comment.body.data.id]);

    const file = await api("POST", `/v1/vulns/${code}/attachments?filename=notes.txt`, {
      key: org.key,
      rawBody: "hi",
      contentType: "text/plain",
    });
    expect(file.status).toBe(201);
    expect((await get(`/v1/vulns/${code}/attachments`, org.key)).body.data).toHaveLength(1);
    expect((await get(`/v1/vulns/${code}/attachments/${file.body.data.id}`, org.key)).status).toBe(200);
    const bytes = (await download(org.key, `/v1/vulns/${code}/attachments/${file.body.data.id}/content`)).bytes;
    expect(new TextDecoder().decode(bytes)).toBe("hi");

    expect((await api("DELETE", `/v1/vulns/${code}`, { key: org.key })).status).toBe(204);
    expect((await get(`/v1/vulns/${v.id}`, org.key)).status).toBe(404);
  });

  it("is 404 for another organization's and for none, and an operator finds any", async () => {
    const v = await vuln(org, briefId);
    const code = v.attributes.shortcode as string;
    const foreign = await get(`/v1/vulns/${code}`, other.key);
    expect([foreign.status, foreign.body.errors[0].code]).toEqual([404, "vuln_not_found"]);
    expect((await get(`/v1/vulns/${code}/comments`, other.key)).status).toBe(404);
    const unknown = await get("/v1/vulns/0000-0000-0000", org.key);
    expect([unknown.status, unknown.body.errors[0].detail]).toEqual([404, "No vuln has that shortcode."]);
    expect((await get(`/v1/vulns/${code}`, await operatorKey())).body.data?.id).toBe(v.id);
  });

  it("q[shortcode_eq] lists the one vuln, any case; a value that cannot be a shortcode is 400", async () => {
    const [v] = await Promise.all([vuln(org, briefId), vuln(org, briefId)]);
    const code = v.attributes.shortcode as string;
    const found = await get(`/v1/vulns?q[shortcode_eq]=${code.toLowerCase()}`, org.key);
    expect([found.body.data.map((d: { id: string }) => d.id), found.body.meta.page.total]).toEqual([[v.id], 1]);
    expect((await get(`/v1/vulns?q[shortcode_eq]=${code}`, other.key)).body.data).toEqual([]);
    const bad = await get("/v1/vulns?q[shortcode_eq]=XSS", org.key);
    expect([bad.status, bad.body.errors[0].source]).toEqual([400, { parameter: "q[shortcode_eq]" }]);
  });
});

describe("unread, and who spoke last", () => {
  const activity = async (o: TestOrganization, id: string) => {
    // A HEAD-free read that does not mark it read: the list.
    const page = await get(`/v1/vulns?q[shortcode_eq]=${(await get(`/v1/vulns/${id}`, o.key)).body.data.attributes.shortcode}`, o.key);
    const a = page.body.data[0].attributes;
    return { at: a.last_activity_at as string, by: a.last_activity_by as string };
  };

  it("the report is the first activity: the reporter's through a brief, the organization's through POST /v1/vulns", async () => {
    const report = await submitReport(org);
    const listed = (await get(`/v1/vulns?q[shortcode_eq]=${report.shortcode}`, org.key)).body.data[0].attributes;
    expect([listed.last_activity_by, listed.last_activity_at]).toEqual(["reporter", listed.created_at]);
    const entered = (await vuln(org, briefId)).attributes;
    expect([entered.last_activity_by, entered.last_activity_at]).toEqual(["organization", entered.created_at]);
  });

  it("moves with what one side says to the other, not with internal notes or triage", async () => {
    const report = await submitReport(org);
    const first = await activity(org, report.id);
    const say = (visibility: string) =>
      post(`/v1/vulns/${report.id}/comments`, org.key, { data: { type: "comment", attributes: { body: "Noted.", visibility } } });
    expect((await say("internal")).status).toBe(201);
    await patch(`/v1/vulns/${report.id}`, org.key, { data: { type: "vuln", attributes: { severity: "high", tags: ["x"] } } });
    expect(await activity(org, report.id)).toEqual(first);

    const reply = await say("reporter");
    expect(await activity(org, report.id)).toEqual({ at: reply.body.data.attributes.created_at, by: "organization" });

    const answer = await asReporter("POST", "/v1/p/report/comments", report.token, {
      body: { data: { type: "comment", attributes: { body: "Any news?" } } },
      contentType: "application/json",
    });
    expect(answer.status).toBe(201);
    expect(await activity(org, report.id)).toEqual({ at: answer.body.data.attributes.created_at, by: "reporter" });

    const closed = await patch(`/v1/vulns/${report.id}`, org.key, { data: { type: "vuln", attributes: { processing_state: "closed" } } });
    expect([closed.body.data.attributes.last_activity_by, closed.body.data.attributes.last_activity_at]).toEqual([
      "organization",
      closed.body.data.attributes.updated_at,
    ]);
    expect(await activity(org, report.id)).toEqual({ at: closed.body.data.attributes.updated_at, by: "organization" });

    const file = await reporterUpload(report.token, "one more trace");
    expect(file.status).toBe(201);
    expect(await activity(org, report.id)).toEqual({ at: file.body.data.attributes.created_at, by: "reporter" });
  });

  it("q[read_eq], q[last_activity_by_eq] and sort=last_activity_at find the unread and the waiting, with exact totals", async () => {
    const o = await organization();
    const code = (await brief(o, { published_at: PUBLISHED })).attributes.shortcode as string;
    const reports = [];
    for (let i = 0; i < 4; i++) reports.push(await submitReport(o, {}, { shortcode: code }));
    const [a, b, c, d] = reports as [SubmittedReport, SubmittedReport, SubmittedReport, SubmittedReport];
    // a is opened and answered; b is opened and answered, then the reporter writes back; c is opened; d is untouched.
    for (const r of [a, b, c]) await get(`/v1/vulns/${r.id}`, o.key);
    for (const r of [a, b])
      await post(`/v1/vulns/${r.id}/comments`, o.key, {
        data: { type: "comment", attributes: { body: "On it.", visibility: "reporter" } },
      });
    await asReporter("POST", "/v1/p/report/comments", b.token, {
      body: { data: { type: "comment", attributes: { body: "Fixed yet?" } } },
      contentType: "application/json",
    });
    const ids = (res: { body: { data: { id: string }[]; meta: { page: { total: number } } } }) => [
      res.body.data.map((v) => v.id),
      res.body.meta.page.total,
    ];
    expect(ids(await get("/v1/vulns?q[read_eq]=false", o.key))).toEqual([[d.id], 1]);
    expect(ids(await get("/v1/vulns?q[read_eq]=true&sort=created_at", o.key))).toEqual([[a.id, b.id, c.id], 3]);
    // Waiting on the organization, the one it owes longest first.
    expect(ids(await get("/v1/vulns?q[last_activity_by_eq]=reporter&sort=last_activity_at", o.key))).toEqual([[c.id, d.id, b.id], 3]);
    expect(ids(await get("/v1/vulns?q[last_activity_by_eq]=organization", o.key))).toEqual([[a.id], 1]);
    const newest = await get("/v1/vulns?sort=-last_activity_at&page[size]=2&page[after]=", o.key);
    expect(newest.body.data.map((v: { id: string }) => v.id)).toEqual([b.id, a.id]);
    expect((await get(newest.body.links.next, o.key)).body.data.map((v: { id: string }) => v.id)).toEqual([d.id, c.id]);
    const since = (await get(`/v1/vulns/${b.id}`, o.key)).body.data.attributes.last_activity_at as string;
    expect(ids(await get(`/v1/vulns?q[last_activity_at_gteq]=${since}`, o.key))).toEqual([[b.id], 1]);

    expect((await get("/v1/vulns?q[read_eq]=no", o.key)).body.errors[0].source).toEqual({ parameter: "q[read_eq]" });
    expect((await get("/v1/vulns?q[last_activity_by_eq]=nobody", o.key)).status).toBe(400);
  });

  it("are read-only", async () => {
    const v = await vuln(org, briefId);
    for (const member of ["last_activity_at", "last_activity_by"]) {
      const res = await patch(`/v1/vulns/${v.id}`, org.key, { data: { type: "vuln", attributes: { [member]: "reporter" } } });
      expect([res.status, res.body.errors[0].source.pointer, res.body.errors[0].detail]).toEqual([
        422,
        `/data/attributes/${member}`,
        expect.stringMatching(/read-only/),
      ]);
    }
  });
});

describe("q[search]", () => {
  let o: TestOrganization;
  let ids: Record<string, string>;
  beforeAll(async () => {
    o = await organization();
    const b = (await brief(o, { published_at: PUBLISHED })).id;
    const made = async (title: string, description: string, attributes: Record<string, unknown> = {}) =>
      (await vuln(o, b, { title, description, ...attributes })).id as string;
    ids = {
      title: await made("Stored XSS in the profile page", "The name field renders HTML.", { severity: "high" }),
      body: await made("Profile page issue", "A stored xss through the avatar URL.", { severity: "low" }),
      comment: await made("Open redirect on login", "next= is not checked."),
      other: await made("SQL injection in search", "The café filter concatenates input."),
    };
    await post(`/v1/vulns/${ids.comment}/comments`, o.key, {
      data: { type: "comment", attributes: { body: "Chained with a stored XSS it steals sessions." } },
    });
    // Another organization's report that matches: never found.
    const b2 = (await brief(other, { published_at: PUBLISHED })).id;
    await vuln(other, b2, { title: "Stored XSS everywhere", description: "xss" });
  }, 60_000);

  const found = async (query: string, key = o.key) => {
    const res = await get(`/v1/vulns?${query}`, key);
    expect(res.status, res.text).toBe(200);
    return {
      ids: res.body.data.map((v: { id: string }) => Object.keys(ids).find((k) => ids[k] === v.id) ?? v.id),
      total: res.body.meta.page.total,
    };
  };

  it("finds words in titles, descriptions and comments, a title match first, only the caller's", async () => {
    expect(await found("q[search]=stored%20xss")).toEqual({ ids: ["title", "body", "comment"], total: 3 });
    expect(await found("q[search]=cafe")).toEqual({ ids: ["other"], total: 1 });
    expect(await found('q[search]="xss through"')).toEqual({ ids: ["body"], total: 1 });
    expect(await found('q[search]="through xss"')).toEqual({ ids: [], total: 0 });
    expect(await found("q[search]=inject*")).toEqual({ ids: ["other"], total: 1 });
  });

  it("combines with filters and sorts, and pages by number", async () => {
    expect(await found("q[search]=xss&q[severity_eq]=low")).toEqual({ ids: ["body"], total: 1 });
    expect(await found("q[search]=xss&sort=created_at")).toEqual({ ids: ["title", "body", "comment"], total: 3 });
    expect(await found("q[search]=xss&page[size]=1&page[number]=2")).toEqual({ ids: ["body"], total: 3 });
    const bySort = await get("/v1/vulns?q[search]=xss&sort=-created_at&page[size]=2&page[after]=", o.key);
    expect(bySort.body.data.map((v: { id: string }) => v.id)).toEqual([ids.comment, ids.body]);
    expect((await get(bySort.body.links.next, o.key)).body.data.map((v: { id: string }) => v.id)).toEqual([ids.title]);
  });

  it("follows edits and deletions", async () => {
    const b = (await brief(o, { published_at: PUBLISHED })).id;
    const v = (await vuln(o, b, { title: "Quokka disclosure", description: "d" })).id as string;
    expect((await found("q[search]=quokka")).total).toBe(1);
    await patch(`/v1/vulns/${v}`, o.key, { data: { type: "vuln", attributes: { title: "Wombat disclosure" } } });
    expect((await found("q[search]=quokka")).total).toBe(0);
    expect((await found("q[search]=wombat")).total).toBe(1);
    const note = await post(`/v1/vulns/${v}/comments`, o.key, { data: { type: "comment", attributes: { body: "platypus" } } });
    expect((await found("q[search]=platypus")).total).toBe(1);
    await api("DELETE", `/v1/vulns/${v}/comments/${note.body.data.id}`, { key: o.key });
    expect((await found("q[search]=platypus")).total).toBe(0);
    await api("DELETE", `/v1/vulns/${v}`, { key: o.key });
    expect((await found("q[search]=wombat")).total).toBe(0);
  });

  it("an operator searches every organization", async () => {
    expect((await found("q[search]=stored%20xss", await operatorKey())).total).toBeGreaterThanOrEqual(4);
  });

  it.each([
    ["q[search]=%20--%20", "q[search]", /word to search/],
    [`q[search]=${"a".repeat(201)}`, "q[search]", /at most 200/],
    ["q[search]=xss&page[after]=", "page[after]", /rank order/],
  ])("%s is a 400 at %s", async (query, parameter, detail) => {
    const res = await get(`/v1/vulns?${query}`, o.key);
    expect([res.status, res.body.errors[0].source, res.body.errors[0].detail]).toEqual([400, { parameter }, expect.stringMatching(detail)]);
  });
});
