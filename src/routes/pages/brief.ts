import { Hono } from "hono";
import type { AppEnv } from "../../app-env";
import { cachedPublicBody, publicBriefPath, publicPagePath } from "../../http/cache";
import { database } from "../../http/middleware";
import { clientIp } from "../../http/rate-limit";
import { generateReporterToken, sha256Hex } from "../../lib/crypto";
import { normalizeShortcode, nowIso } from "../../lib/ids";
import { alreadyReceivedPage, briefPage } from "../../pages/brief";
import { notFoundPage } from "../../pages/layout";
import { findPublishedBrief } from "../../services/public-briefs";
import { addReporterFile } from "../../services/reporter";
import { createVuln } from "../../services/vulns";
import { serviceContext } from "../v1/handler-helpers";
import { MAX_FORM_BYTES, readReportForm, reserveForm } from "./form";
import { HTML, limitAddress, limitFormBody, page } from "./shared";

/** GET and POST /b/{shortcode}: the brief's page and its report form. */
export const briefPageRouter = new Hono<AppEnv>()
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
      return page(c, briefPage(found, now, { values: { title: "", description: "", contact_email: "", domains: "" }, errors: { title: ["The form could not be read: send it from this page."] } }), 400);
    }
    const form = await readReportForm(fd);
    if (!form.ok) return page(c, briefPage(found, now, form.state), 422);

    const reserved = await reserveForm(db, clientIp(c.req), form.contentHash);
    if (reserved.repeat) return page(c, alreadyReceivedPage(found, reserved.shortcode));
    const { unit } = reserved;
    const token = generateReporterToken();
    const ctx = { ...serviceContext(c), idempotency: unit };
    let record;
    try {
      // What the repeat finds: the shortcode only (the token is never stored, only its hash).
      const respond = (r: { shortcode: string }) => ({ status: 200, headers: {}, body: JSON.stringify({ shortcode: r.shortcode }) });
      record = await createVuln(ctx, form.input, { shortcode }, form.raw, respond, await sha256Hex(token));
    } catch (err) {
      if (!unit.sealed) await unit.release();
      throw err;
    }
    // The files follow the report, through the reporter's own upload; one that fails leaves the
    // report made, and the report's page says so and takes the file again.
    const files = { ...serviceContext(c), objects: c.env.ATTACHMENTS };
    let failed = 0;
    for (const { file } of form.files) {
      try {
        const meta = { filename: file.name, contentType: file.type || undefined, declaredLength: file.size };
        await addReporterFile({ ctx: files, report: record, body: file.stream(), meta, withSubmission: true });
      } catch (err) {
        failed++;
        console.error(JSON.stringify({ level: "warn", message: "form file not stored", vuln_id: record.id, error: String(err) }));
      }
    }
    return c.redirect(`/r/${token}?sent=1${failed ? `&failed=${failed}` : ""}`, 303);
  });
