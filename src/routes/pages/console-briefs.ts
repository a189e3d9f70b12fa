import { Hono, type Context } from "hono";
import type { AppEnv } from "../../http/app-env";
import { LIMITS } from "../../lib/limits";
import { nowIso } from "../../lib/ids";
import { getBrief, listBriefs, updateBrief } from "../../services/briefs";
import { releaseQueuedVulns } from "../../services/gate/queue";
import { emptyForm, type FormState } from "../../templates/console-forms";
import { EVIDENCE_FIELDS } from "../../db/schema";
import { BRIEF_FIELDS, briefFormValues, briefsPage } from "../../templates/console-briefs";
import { UpdateBriefInput } from "../v1/briefs/schema";
import { serviceContext } from "../v1/handler-helpers";
import { signedIn } from "./console-door";
import { whoOf } from "./console-shell";
import { formText } from "./form";
import { formProblems } from "./console-settings-form";
import { limitFormBody, page } from "./shared";

// /console/settings/briefs: the organization's briefs through the service GET /v1/briefs reads, and an
// owner's change of one through updateBrief (PATCH /v1/briefs/{id}'s), which refuses anyone else.

/** A number field: empty is null (no cap, no lane); digits a number; anything else as typed, for the schema to refuse. */
const numberOf = (typed: string) => {
  const t = typed.trim();
  return t === "" ? null : /^-?\d+$/.test(t) ? Number(t) : t;
};
/** The form's datetime-local (UTC, minutes) as an ISO time; empty is null; anything else as typed, for the schema to refuse. */
const isoOf = (typed: string) => (typed === "" ? null : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(typed) ? `${typed}:00.000Z` : typed);

/** The gate's attributes of the brief as the form sets them, in PATCH /v1/briefs/{id}'s words. */
function gateAttributes(values: Record<string, string>): Record<string, unknown> {
  const evidence = Object.fromEntries(EVIDENCE_FIELDS.filter((f) => values[`evidence_${f}`]).map((f) => [f, values[`evidence_${f}`]]));
  const expected = numberOf(values.expected_hourly ?? "");
  const message = (values.intake_paused_message ?? "").trim();
  return {
    submission_requirements: { evidence, ai_disclosure: values.ai_disclosure || "off" },
    proof_of_work: values.proof_of_work || "off",
    // Required: left empty, it stays as it is.
    ...(expected === null ? {} : { expected_hourly: expected }),
    daily_cap: numberOf(values.daily_cap ?? ""),
    intake_paused_until: isoOf((values.intake_paused_until ?? "").trim()),
    intake_paused_message: message === "" ? null : message,
    verified_lane_min_valid: numberOf(values.verified_lane_min_valid ?? ""),
  };
}

export const consoleBriefsRouter = new Hono<AppEnv>();

async function render(
  c: Context<AppEnv>,
  opts: { briefId?: string; form?: FormState; saved?: boolean; released?: { released: number; stillQueued: number }; status?: 200 | 422 },
) {
  const ctx = serviceContext(c);
  const now = nowIso();
  const [who, { rows, total }] = await Promise.all([
    whoOf(c),
    listBriefs(ctx, { page: { number: 1, size: LIMITS.pageSize }, sort: "created_at" }),
  ]);
  const selected = opts.briefId ? (rows.find((b) => b.id === opts.briefId) ?? (await getBrief(ctx, opts.briefId))) : null;
  const form = opts.form ?? emptyForm(selected ? briefFormValues(selected, now) : {});
  return page(
    c,
    briefsPage({ who, briefs: rows, total, selected, form, saved: opts.saved ?? false, released: opts.released, now }),
    opts.status ?? 200,
  );
}

/** A count the release's redirect carries, as the page reads it back. */
const countOf = (text: string | undefined) => (text && /^\d{1,6}$/.test(text) ? Number(text) : null);

consoleBriefsRouter.get("/console/settings/briefs", signedIn("page"), (c) => {
  const released = countOf(c.req.query("released"));
  const stillQueued = countOf(c.req.query("still_queued"));
  return render(c, {
    briefId: c.req.query("brief") || undefined,
    saved: c.req.query("saved") === "1",
    released: released === null || stillQueued === null ? undefined : { released, stillQueued },
  });
});

// The owner's release of a brief's queue, through the service POST /v1/briefs/{id}/release-queued calls
// (which refuses anyone but an owner, and audits every call).
consoleBriefsRouter.post("/console/settings/briefs/:id/release-queued", limitFormBody(4 * 1024), signedIn("page"), async (c) => {
  const id = c.req.param("id");
  const { released, stillQueued } = await releaseQueuedVulns(serviceContext(c), id);
  return c.redirect(`/console/settings/briefs?brief=${encodeURIComponent(id)}&released=${released}&still_queued=${stillQueued}`, 303);
});

consoleBriefsRouter.post("/console/settings/briefs/:id", limitFormBody(64 * 1024), signedIn("page"), async (c) => {
  const id = c.req.param("id");
  const ctx = serviceContext(c);
  const sent = await c.req.parseBody();
  const values = Object.fromEntries(Object.keys(BRIEF_FIELDS).map((f) => [f, formText(sent, f)]));
  const existing = await getBrief(ctx, id);
  const description = values.short_description!.trim();
  const attributes: Record<string, unknown> = {
    name: values.name,
    short_description: description === "" ? null : description,
    ...gateAttributes(values),
  };
  // Published keeps the time it has (or starts now); a draft has none.
  if (values.state === "draft") attributes.published_at = null;
  else if (existing.publishedAt === null) attributes.published_at = nowIso();
  const parsed = UpdateBriefInput.safeParse({ data: { type: "brief", id, attributes } });
  if (!parsed.success)
    return render(c, { briefId: id, form: { values, errors: formProblems(parsed.error.issues, BRIEF_FIELDS) }, status: 422 });
  await updateBrief(ctx, id, { input: parsed.data.data.attributes, links: {} });
  return c.redirect(`/console/settings/briefs?brief=${encodeURIComponent(id)}&saved=1`, 303);
});
