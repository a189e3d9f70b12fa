import { type Context, Hono } from "hono";
import { assertOpen } from "../../lib/gate";
import type { AppEnv } from "../../http/app-env";
import { cachedPublicBody, publicBriefPath, publicPagePath } from "../../http/cache";
import { database } from "../../http/middleware";
import { routeBy, shortcodeName } from "../../http/shard-lookup";
import { clientIp } from "../../http/rate-limit";
import { normalizeShortcode, nowIso } from "../../lib/ids";
import { alreadyReceivedPage, briefPage, EMPTY_FORM, type FormField, type FormState } from "../../templates/brief";
import { IntakePaused, Invalid, RateLimited, SignatureInvalid } from "../../lib/domain-errors";
import { notFoundPage } from "../../templates/layout";
import { findPublishedBrief, type PublishedBrief } from "../../services/briefs";
import { submitReportForm } from "../../services/reporter";
import { serviceContext } from "../v1/handler-helpers";
import { MAX_FORM_BYTES, readReportForm } from "./form";
import { HTML, limitAddress, limitFormBody, page, pageHeaders } from "./shared";

/** What the page says for a refusal of the gate, on which field, with which status; null: not the gate's. */
function gateRefusal(err: unknown): { status: 400 | 422 | 429 | 503; errors: FormState["errors"]; retryAfter?: string } | null {
  if (err instanceof IntakePaused)
    return { status: 503, retryAfter: String(Math.ceil(err.retryAfterSeconds)), errors: { send: [err.problems[0]!.detail] } };
  if (err instanceof RateLimited)
    return { status: 429, retryAfter: String(Math.ceil(err.retryAfterSeconds)), errors: { send: [err.problems[0]!.detail] } };
  if (err instanceof SignatureInvalid)
    return {
      status: 400,
      errors: { send: [`Your browser's signature did not verify (${err.problems[0]!.detail}). Untick “Sign” and send again.`] },
    };
  if (err instanceof Invalid) {
    const errors: FormState["errors"] = {};
    for (const p of err.problems) {
      const member = p.source && "member" in p.source && "attribute" in p.source.member ? p.source.member.attribute : "";
      const f = (member === "ai_use" ? "ai_use" : member.startsWith("evidence.") ? `evidence_${member.slice(9)}` : "send") as FormField;
      (errors[f] ??= []).push(p.detail);
    }
    return { status: 422, errors };
  }
  return null;
}

type Refused = NonNullable<ReturnType<typeof gateRefusal>>;

const refusalOf = (check: () => void): Refused | null => {
  try {
    check();
    return null;
  } catch (err) {
    return gateRefusal(err);
  }
};

/** The form again, with the gate's message beside the send button (or its fields) and what was typed. */
function refusedPage(c: Context<AppEnv>, found: PublishedBrief, state: FormState, refused: Refused) {
  if (refused.retryAfter) c.header("Retry-After", refused.retryAfter);
  return page(c, briefPage(found, nowIso(), { values: state.values, errors: refused.errors }), refused.status);
}

/** In a sharded deployment the page and its form read the brief's organization's shard, found by its shortcode. */
const byBrief = routeBy((c) => shortcodeName("brief", c.req.param("shortcode")));

/** GET and POST /b/{shortcode}: the brief's page and its report form. */
export const briefPageRouter = new Hono<AppEnv>()
  // The program finder (on the start page and every 404 page): a code as typed, to its page.
  .get("/b", pageHeaders, (c) => {
    const shortcode = normalizeShortcode(c.req.query("code")?.trim() ?? "");
    return shortcode ? c.redirect(`/b/${shortcode}`, 303) : page(c, notFoundPage("disclosure program with that code"), 404);
  })
  .get("/b/:shortcode", database(), byBrief, async (c) => {
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
  .post("/b/:shortcode", limitFormBody(MAX_FORM_BYTES), database(), byBrief, async (c) => {
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
    const form = await readReportForm(fd, found.brief.submissionRequirements);
    // A paused brief answers so before anything else, keeping what was typed.
    const paused = refusalOf(() =>
      assertOpen({ pausedUntil: found.brief.intakePausedUntil, pauseMessage: found.brief.intakePausedMessage }, Date.now()),
    );
    if (paused) return refusedPage(c, found, form.state, paused);
    if (!form.ok) return page(c, briefPage(found, now, form.state), 422);

    const ctx = { ...serviceContext(c), objects: c.env.ATTACHMENTS };
    const { input, raw, contentHash } = form;
    const files = form.files.map((f) => f.file);
    const address = clientIp(c.req);
    let sent: Awaited<ReturnType<typeof submitReportForm>>;
    try {
      sent = await submitReportForm({ ctx, shortcode, input, raw, contentHash, files, address, gate: { ...form.gate, address } });
    } catch (err) {
      // The gate's refusals come back as the form, with what was typed and why (a pause shows its notice).
      const refused = gateRefusal(err);
      if (!refused) throw err;
      return refusedPage(c, found, form.state, refused);
    }
    if (sent.repeat) return page(c, alreadyReceivedPage(found, sent.shortcode));
    // The page counts what is missing against what the report holds; the address says only how many were sent.
    const { token, failedFiles } = sent;
    return c.redirect(`/r/${token}?sent=1${failedFiles ? `&files=${files.length}` : ""}`, 303);
  });
