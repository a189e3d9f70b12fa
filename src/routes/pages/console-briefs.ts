import { Hono, type Context } from "hono";
import type { AppEnv } from "../../http/app-env";
import { LIMITS } from "../../lib/limits";
import { nowIso } from "../../lib/ids";
import { getBrief, listBriefs, updateBrief } from "../../services/briefs";
import { emptyForm, type FormState } from "../../templates/console-forms";
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

export const consoleBriefsRouter = new Hono<AppEnv>();

async function render(c: Context<AppEnv>, opts: { briefId?: string; form?: FormState; saved?: boolean; status?: 200 | 422 }) {
  const ctx = serviceContext(c);
  const now = nowIso();
  const [who, { rows, total }] = await Promise.all([
    whoOf(c),
    listBriefs(ctx, { page: { number: 1, size: LIMITS.pageSize }, sort: "created_at" }),
  ]);
  const selected = opts.briefId ? (rows.find((b) => b.id === opts.briefId) ?? (await getBrief(ctx, opts.briefId))) : null;
  const form = opts.form ?? emptyForm(selected ? briefFormValues(selected, now) : {});
  return page(c, briefsPage({ who, briefs: rows, total, selected, form, saved: opts.saved ?? false, now }), opts.status ?? 200);
}

consoleBriefsRouter.get("/console/settings/briefs", signedIn("page"), (c) =>
  render(c, { briefId: c.req.query("brief") || undefined, saved: c.req.query("saved") === "1" }),
);

consoleBriefsRouter.post("/console/settings/briefs/:id", limitFormBody(64 * 1024), signedIn("page"), async (c) => {
  const id = c.req.param("id");
  const ctx = serviceContext(c);
  const sent = await c.req.parseBody();
  const values = Object.fromEntries(Object.keys(BRIEF_FIELDS).map((f) => [f, formText(sent, f)]));
  const existing = await getBrief(ctx, id);
  const description = values.short_description!.trim();
  const attributes: Record<string, unknown> = { name: values.name, short_description: description === "" ? null : description };
  // Published keeps the time it has (or starts now); a draft has none.
  if (values.state === "draft") attributes.published_at = null;
  else if (existing.publishedAt === null) attributes.published_at = nowIso();
  const parsed = UpdateBriefInput.safeParse({ data: { type: "brief", id, attributes } });
  if (!parsed.success)
    return render(c, { briefId: id, form: { values, errors: formProblems(parsed.error.issues, BRIEF_FIELDS) }, status: 422 });
  await updateBrief(ctx, id, { input: parsed.data.data.attributes, links: {} });
  return c.redirect(`/console/settings/briefs?brief=${encodeURIComponent(id)}&saved=1`, 303);
});
