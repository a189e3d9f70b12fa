import type { Context } from "hono";
import { Hono } from "hono";
import type { AppEnv } from "../../app-env";
import { ApiError } from "../../http/errors";
import { database } from "../../http/middleware";
import { clientIp, rateLimited, UnauthenticatedLimit } from "../../http/rate-limit";
import { REPORTER_TOKEN_PATTERN, sha256Hex } from "../../lib/crypto";
import { downloadHeaders } from "../../lib/filenames";
import { notFoundPage } from "../../pages/layout";
import { reportPage, type ReportView } from "../../pages/report";
import { listAttachments, MAX_FILE_BYTES, openAttachmentContent, uploadAttachment } from "../../services/attachments";
import { createComment, listComments, MAX_COMMENT_LENGTH } from "../../services/comments";
import { findReport, reportScopedCaller, reporterCaller, reporterUploaded, type Report } from "../../services/report";
import { serviceContext } from "../v1/handler-helpers";
import { formText } from "./form";
import { limitFormBody, page, privatePage } from "./shared";

const SHOWN = { number: 1, size: 100 };

// The same guard as the reporter's API: a guessed token costs one lookup, none once the address is
// over its budget, and a known one is limited per report.
const gate = new UnauthenticatedLimit();

async function openReport(c: Context<AppEnv>): Promise<{ report: Report; token: string } | null> {
  const token = c.req.param("token") ?? "";
  const ip = clientIp(c.req);
  const unknown = async () => {
    if (await gate.failed(c.env.UNAUTHENTICATED_RATE_LIMITER, ip)) throw rateLimited("Too many unknown report links from this address.");
    return null;
  };
  if (!REPORTER_TOKEN_PATTERN.test(token)) return unknown();
  const hash = await sha256Hex(token);
  if (!gate.mayLookUp(ip, hash)) throw rateLimited("Too many unknown report links from this address.");
  const report = await findReport(c.var.database.db, hash);
  // A deleted report's page is a 404 page too, like an unknown link's.
  if (!report || report === "deleted") return unknown();
  gate.succeeded(hash);
  if (!(await c.env.REPORTER_RATE_LIMITER.limit({ key: report.id })).success) throw rateLimited("Too many requests for this report.");
  return { report, token };
}

function contexts(c: Context<AppEnv>, report: Report) {
  const base = serviceContext(c);
  return { ctx: { ...base, caller: reporterCaller(report) }, files: { ...base, caller: reportScopedCaller(report), objects: c.env.ATTACHMENTS } };
}

async function render(c: Context<AppEnv>, opened: { report: Report; token: string }, extra: Partial<ReportView> = {}, status = 200) {
  const { report } = opened;
  const { ctx, files } = contexts(c, report);
  const [comments, attachments] = await Promise.all([
    listComments(ctx, { author: "reporter", vulnId: report.id, organizationId: report.organizationId }, SHOWN),
    listAttachments(files, report.id, SHOWN, "created_at"),
  ]);
  return page(c, reportPage({ ...opened, comments: comments.rows, commentsTotal: comments.total, files: attachments.rows, ...extra }), status);
}

const missing = (c: Context) => page(c, notFoundPage("report"), 404);

/** /r/{token}: the reporter's page, its reply and upload forms, and its files. */
export const reportPageRouter = new Hono<AppEnv>()
  .use("/r/*", privatePage)
  .get("/r/:token", database(), async (c) => {
    const opened = await openReport(c);
    if (!opened) return missing(c);
    const failed = Number(c.req.query("failed") ?? 0);
    const notice = c.req.query("sent")
      ? `Your report was sent to ${opened.report.organizationName}.${failed ? ` ${failed} of its files could not be stored: add ${failed === 1 ? "it" : "them"} below.` : ""}`
      : undefined;
    return render(c, opened, { notice });
  })
  .post("/r/:token/comments", limitFormBody(1024 * 1024), database(), async (c) => {
    const opened = await openReport(c);
    if (!opened) return missing(c);
    const body = formText(await c.req.parseBody(), "body");
    const error = body.trim() === "" ? "The reply must not be empty." : body.length > MAX_COMMENT_LENGTH ? `The reply must be at most ${MAX_COMMENT_LENGTH} characters; it has ${body.length}.` : undefined;
    if (error) return render(c, opened, { reply: { body, error } }, 422);
    const { report } = opened;
    await createComment(contexts(c, report).ctx, { author: "reporter", vulnId: report.id, organizationId: report.organizationId }, { body, visibility: "reporter" });
    return c.redirect(`/r/${opened.token}#conversation`, 303);
  })
  .post("/r/:token/attachments", limitFormBody(MAX_FILE_BYTES + 64 * 1024), database(), async (c) => {
    const opened = await openReport(c);
    if (!opened) return missing(c);
    const file = (await c.req.formData()).get("file");
    if (typeof file === "string" || file === null || (file.size === 0 && file.name === "")) return render(c, opened, { fileError: "Choose a file first." }, 422);
    const { files, ctx } = contexts(c, opened.report);
    try {
      await uploadAttachment(files, opened.report.id, file.stream(), { filename: file.name, contentType: file.type || undefined, declaredLength: file.size }, "reporter");
    } catch (err) {
      if (err instanceof ApiError && (err.status === 413 || err.status === 422)) return render(c, opened, { fileError: err.message }, err.status);
      throw err;
    }
    await reporterUploaded(ctx, opened.report.id);
    return c.redirect(`/r/${opened.token}#files`, 303);
  })
  .get("/r/:token/attachments/:id", database(), async (c) => {
    const opened = await openReport(c);
    if (!opened) return missing(c);
    const { record, body } = await openAttachmentContent(contexts(c, opened.report).files, opened.report.id, c.req.param("id"));
    return c.body(body, 200, downloadHeaders(record));
  });
