import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { listAttachments, uploadAttachment, type AttachmentContext } from "../../src/services/attachments";
import { listComments } from "../../src/services/comments";
import { listPolicies } from "../../src/services/policies";
import { readThread, readThreadComment, reporterCaller, reporterFile, reporterFiles } from "../../src/services/reporter";
import { showVuln } from "../../src/services/vulns/read";
import { fakeQueue } from "../helpers/events";
import { policy } from "../helpers/factories";
import { reporterFixture, type ReporterFixture } from "../helpers/reporter";

// The reporter is a caller of its own kind, scoped to its one report: no service lets it act as the
// organization, whatever the door. (The HTTP doors are covered by reporter-access.test.ts; this holds
// the services to it, so a service reached by a new door cannot grant more.)

let mine: ReporterFixture & { internalId: string };
let theirs: ReporterFixture & { internalId: string };
let ctx: AttachmentContext;

beforeAll(async () => {
  mine = await reporterFixture();
  theirs = await reporterFixture(mine.report.org);
  await policy(mine.report.org, { name: "The organization's own" });
  const base = { db: createDb(env.DB), queue: fakeQueue().queue as Queue<never>, defer: () => {}, objects: env.ATTACHMENTS };
  ctx = { ...base, caller: reporterCaller({ id: mine.report.id, organizationId: mine.report.org.id }) };
});

const report = () => ({ id: mine.report.id, organizationId: mine.report.org.id });
const page = { number: 1, size: 100 };

describe("a reporter caller", () => {
  it("is of kind reporter, never organization, names its one report and holds no scope", () => {
    expect(ctx.caller).toEqual({
      keyId: `report:${mine.report.id}`,
      kind: "reporter",
      organizationId: mine.report.org.id,
      reportId: mine.report.id,
      scopes: [],
    });
  });

  it("sees nothing organization-wide: no policies, no vuln by id, not even its own through the organization's read", async () => {
    expect((await listPolicies(ctx, { page })).rows).toEqual([]);
    await expect(showVuln(ctx, mine.report.id)).rejects.toMatchObject({ kind: "not_found", entity: "vuln" });
    await expect(showVuln(ctx, theirs.report.id)).rejects.toMatchObject({ kind: "not_found", entity: "vuln" });
  });

  it("reads its own report's conversation and files, without the internal notes", async () => {
    const thread = await readThread({ ctx, report: report(), page });
    expect(thread.rows.map((c) => c.id)).toEqual([mine.commentId]);
    expect((await reporterFiles({ ctx, report: report(), page })).rows.map((a) => a.id)).toEqual([mine.attachmentId]);
    await expect(readThreadComment({ ctx, report: report(), commentId: mine.internalId })).rejects.toMatchObject({ kind: "not_found" });
  });

  it("reaches no other report of the same organization, even when a service is handed that report's id", async () => {
    await expect(listAttachments(ctx, theirs.report.id, { page })).rejects.toMatchObject({ kind: "not_found", entity: "vuln" });
    expect((await listComments(ctx, { author: "reporter", vulnId: theirs.report.id }, { page })).rows).toEqual([]);
    await expect(reporterFile({ ctx, report: report(), attachmentId: theirs.attachmentId })).rejects.toMatchObject({ kind: "not_found" });
    const bytes = new Blob(["x"]).stream();
    await expect(
      uploadAttachment({
        ctx,
        vulnId: theirs.report.id,
        body: bytes,
        meta: { filename: "x.txt", contentType: "text/plain", declaredLength: 1 },
        by: "reporter",
      }),
    ).rejects.toMatchObject({ kind: "not_found", entity: "vuln" });
    const files = await env.DB.prepare("SELECT count(*) AS n FROM attachments WHERE vuln_id = ?")
      .bind(theirs.report.id)
      .first<{ n: number }>();
    expect(files!.n).toBe(1);
  });
});
