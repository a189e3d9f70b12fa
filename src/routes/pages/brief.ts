import { Hono } from "hono";
import type { AppEnv } from "../../http/app-env";
import { cachedPublicBody, publicBriefPath, publicPagePath } from "../../http/cache";
import { database } from "../../http/middleware";
import { clientIp } from "../../http/rate-limit";
import { normalizeShortcode, nowIso } from "../../lib/ids";
import { alreadyReceivedPage, briefPage, EMPTY_FORM } from "../../templates/brief";
import { notFoundPage } from "../../templates/layout";
import { findPublishedBrief } from "../../services/briefs";
import { submitReportForm } from "../../services/reporter";
import { serviceContext } from "../v1/handler-helpers";
import { MAX_FORM_BYTES, readReportForm } from "./form";
import { HTML, limitAddress, limitFormBody, page, pageHeaders } from "./shared";

/** GET and POST /b/{shortcode}: the brief's page and its report form. */
export const briefPageRouter = new Hono<AppEnv>()
  // The program finder (on the start page and every 404 page): a code as typed, to its page.
  .get("/b", pageHeaders, (c) => {
    const shortcode = normalizeShortcode(c.req.query("code")?.trim() ?? "");
    return shortcode ? c.redirect(`/b/${shortcode}`, 303) : page(c, notFoundPage("disclosure program with that code"), 404);
  })
  .get("/b/:shortcode", database(), async (c) => {
    await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
    const shortcode = normalizeShortcode(c.req.param("shortcode"));
    const response =
      shortcode &&
      (await cachedPublicBody(c, publicPagePath(publicBriefPath(shortcode))!, HTML, async () => {
        const now = nowIso();
        const found = await findPublishedBrief(c.var.database.db, shortcode, now);
        return found && briefPage(found, now);
      }));
    return response || page(c, notFoundPage("disclosure program"), 404);
  })
  .post("/b/:shortcode", limitFormBody(MAX_FORM_BYTES), database(), async (c) => {
    const shortcode = normalizeShortcode(c.req.param("shortcode"));
    const db = c.var.database.db;
    const now = nowIso();
    const found = shortcode && (await findPublishedBrief(db, shortcode, now));
    if (!shortcode || !found) return page(c, notFoundPage("disclosure program"), 404);
    await limitAddress(c, "PUBLIC_SUBMIT_RATE_LIMITER");
    let fd: FormData;
    try {
      fd = await c.req.formData();
    } catch {
      return page(
        c,
        briefPage(found, now, {
          values: { ...EMPTY_FORM.values },
          errors: { title: ["The form could not be read: send it from this page."] },
        }),
        400,
      );
    }
    const form = await readReportForm(fd);
    if (!form.ok) return page(c, briefPage(found, now, form.state), 422);

    const ctx = { ...serviceContext(c), objects: c.env.ATTACHMENTS };
    const { input, raw, contentHash } = form;
    const files = form.files.map((f) => f.file);
    const sent = await submitReportForm({ ctx, shortcode, input, raw, contentHash, files, address: clientIp(c.req) });
    if (sent.repeat) return page(c, alreadyReceivedPage(found, sent.shortcode));
    // The page counts what is missing against what the report holds; the address says only how many were sent.
    const { token, failedFiles } = sent;
    return c.redirect(`/r/${token}?sent=1${failedFiles ? `&files=${files.length}` : ""}`, 303);
  });
