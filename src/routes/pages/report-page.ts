import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { Hono } from "hono";
import type { AppEnv } from "../../http/app-env";
import { Invalid, TooLarge } from "../../lib/domain-errors";
import { database } from "../../http/middleware";
import { JOSE_MEDIA_TYPE, JSON_MEDIA_TYPE } from "../../http/media-type";
import { countUnknownToken, openReportToken } from "../../http/reporter-auth";
import { routedLookUp } from "../../http/shard-lookup";
import { contentDisposition, downloadHeaders } from "../../lib/filenames";
import { notFoundPage } from "../../templates/layout";
import { reportPage, type ReportView } from "../../templates/report";
import { MAX_FILE_BYTES } from "../../services/attachments";
import { MAX_COMMENT_LENGTH } from "../../services/comments";
import {
  addReporterFile,
  findReport,
  openReporterFile,
  readThread,
  replyAsReporter,
  reporterFiles,
  setReporterCredit,
  signReceipt,
  type Report,
} from "../../services/reporter";
import { serviceContext } from "../v1/handler-helpers";
import { coordinatorPackage, coordinatorPackageOffered } from "../../services/timeline";
import { KEYS_PATH } from "../well-known";
import { formText, MAX_FORM_FILES } from "./form";
import { LIMITS } from "../../lib/limits";
import { limitFormBody, page, privatePage } from "./shared";

const SHOWN = { number: 1, size: 100 };

/**
 * The report a page's address opens, through the same gate as the reporter's API: null (a 404 page)
 * for a malformed, unknown or deleted report's token alike.
 */
async function openReport(c: Context<AppEnv>): Promise<{ report: Report; token: string } | null> {
  const token = c.req.param("token") ?? "";
  const report = await openReportToken(c, token, { lookUp: routedLookUp("report_token", findReport) });
  if (report === "gone") await countUnknownToken(c);
  return report && report !== "gone" ? { report, token } : null;
}

/** A file the platform made for the reporter to keep (a receipt, a package): a download, never cached. */
function fileToKeep(c: Context<AppEnv>, body: string, contentType: string, filename: string) {
  return c.body(body, 200, {
    "Content-Type": contentType,
    "Content-Disposition": contentDisposition(filename),
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
  });
}

/** What the reporter's verbs take: the request's context (files need the bucket) and the link's report. */
const reporter = (c: Context<AppEnv>, report: Report) => ({ ctx: { ...serviceContext(c), objects: c.env.ATTACHMENTS }, report });

async function render(
  c: Context<AppEnv>,
  opened: { report: Report; token: string },
  extra: Partial<ReportView> = {},
  status: ContentfulStatusCode = 200,
  arrived?: { filesSent: number },
) {
  const [comments, attachments] = await Promise.all([
    readThread({ ...reporter(c, opened.report), page: SHOWN }),
    reporterFiles({ ...reporter(c, opened.report), page: SHOWN, sort: "created_at" }),
  ]);
  if (arrived) {
    // What is missing is what the form sent less what the report holds from the reporter.
    const stored = attachments.rows.filter((f) => f.uploadedBy === "reporter").length;
    const failed = Math.max(0, arrived.filesSent - stored);
    const lost = failed ? ` ${failed} of its files could not be stored: add ${failed === 1 ? "it" : "them"} below.` : "";
    extra = { notice: `Your report was sent to ${opened.report.organizationName}.${lost}`, ...extra };
  }
  return page(
    c,
    reportPage({
      ...opened,
      comments: comments.rows,
      commentsTotal: comments.total,
      files: attachments.rows,
      packageOffered: coordinatorPackageOffered(opened.report, Date.now()),
      ...extra,
    }),
    status,
  );
}

/** How many files the report form sent, as its redirect says: 1 to the form's own limit, else none. */
function filesSent(query: string | undefined): number {
  const n = /^[1-9]\d{0,1}$/.test(query ?? "") ? Number(query) : 0;
  return n <= MAX_FORM_FILES ? n : 0;
}

const missing = (c: Context) => page(c, notFoundPage("report"), 404);

/** /r/{token}: the reporter's page, its reply and upload forms, and its files. */
export const reportPageRouter = new Hono<AppEnv>()
  .use("/r/*", privatePage)
  .get("/r/:token", database(), async (c) => {
    const opened = await openReport(c);
    if (!opened) return missing(c);
    const arrived = c.req.query("sent") ? { filesSent: filesSent(c.req.query("files")) } : undefined;
    return render(c, opened, {}, 200, arrived);
  })
  .post("/r/:token/comments", limitFormBody(1024 * 1024), database(), async (c) => {
    const opened = await openReport(c);
    if (!opened) return missing(c);
    const body = formText(await c.req.parseBody(), "body");
    const error =
      body.trim() === ""
        ? "The reply must not be empty."
        : body.length > MAX_COMMENT_LENGTH
          ? `The reply must be at most ${MAX_COMMENT_LENGTH} characters; it has ${body.length}.`
          : undefined;
    if (error) return render(c, opened, { reply: { body, error } }, 422);
    await replyAsReporter({ ...reporter(c, opened.report), body });
    return c.redirect(`/r/${opened.token}#conversation`, 303);
  })
  .post("/r/:token/credit", limitFormBody(64 * 1024), database(), async (c) => {
    const opened = await openReport(c);
    if (!opened) return missing(c);
    const form = await c.req.parseBody();
    const name = formText(form, "credit_name").trim();
    const consent = form.credit_consent === "yes";
    const error =
      name.length > LIMITS.nameLength
        ? `The name must be at most ${LIMITS.nameLength} characters; it has ${name.length}.`
        : consent && !name
          ? "Give the name to credit you by, or leave the box unticked."
          : undefined;
    if (error) return render(c, opened, { credit: { name, error } }, 422);
    await setReporterCredit(serviceContext(c), opened.report, { credit_name: name || null, credit_consent: consent });
    return c.redirect(`/r/${opened.token}#credit`, 303);
  })
  .post("/r/:token/attachments", limitFormBody(MAX_FILE_BYTES + 64 * 1024), database(), async (c) => {
    const opened = await openReport(c);
    if (!opened) return missing(c);
    const file = (await c.req.formData()).get("file");
    if (typeof file === "string" || file === null || (file.size === 0 && file.name === ""))
      return render(c, opened, { fileError: "Choose a file first." }, 422);
    try {
      await addReporterFile({
        ...reporter(c, opened.report),
        body: file.stream(),
        meta: { filename: file.name, contentType: file.type || undefined, declaredLength: file.size },
      });
    } catch (err) {
      // Too large, or over the report's limits: the page says why and takes another file.
      if (err instanceof TooLarge || err instanceof Invalid)
        return render(c, opened, { fileError: err.message }, err instanceof TooLarge ? 413 : 422);
      throw err;
    }
    return c.redirect(`/r/${opened.token}#files`, 303);
  })
  // The signed receipt, as a file to keep (the page links it once the report is stored).
  .get("/r/:token/receipt", database(), async (c) => {
    const opened = await openReport(c);
    if (!opened) return missing(c);
    if (opened.report.inboxState !== "stored") {
      return render(c, opened, { notice: "Your receipt is ready once your report is delivered: reload this page in a moment." }, 409);
    }
    const jws = await signReceipt(opened.report, c.env.RECEIPT_SIGNING_KEY);
    return fileToKeep(c, jws, JOSE_MEDIA_TYPE, `receipt-${opened.report.shortcode}.jws`);
  })
  // For a reporter left without the answer promised: everything a coordinator needs, in one file.
  .get("/r/:token/package", database(), async (c) => {
    const opened = await openReport(c);
    if (!opened) return missing(c);
    if (!coordinatorPackageOffered(opened.report, Date.now())) {
      return render(
        c,
        opened,
        { notice: "There is no coordinator package for this report: the organization has kept its promises so far." },
        409,
      );
    }
    // The deployment's own address, never the request's Host (which the sender writes).
    const keysUrl = `${c.env.PUBLIC_ORIGIN}${KEYS_PATH}`;
    const bundle = await coordinatorPackage(c.var.database.db, opened.report, { keys: c.env.RECEIPT_SIGNING_KEY, keysUrl });
    return fileToKeep(c, JSON.stringify(bundle, null, 2), JSON_MEDIA_TYPE, `coordinator-package-${opened.report.shortcode}.json`);
  })
  .get("/r/:token/attachments/:id", database(), async (c) => {
    const opened = await openReport(c);
    if (!opened) return missing(c);
    const { record, body } = await openReporterFile({ ...reporter(c, opened.report), attachmentId: c.req.param("id") });
    return c.body(body, 200, downloadHeaders(record));
  });
