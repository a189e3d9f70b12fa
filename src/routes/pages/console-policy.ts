import { Hono, type Context } from "hono";
import type { AppEnv } from "../../http/app-env";
import type { PolicyRow, PolicyVersionRow } from "../../db/schema";
import { LIMITS } from "../../lib/limits";
import { getPolicy, listPolicies, type PolicyInput, updatePolicy } from "../../services/policies";
import { getPolicyVersion, listPolicyVersions } from "../../services/policy-versions";
import { emptyForm, type FormState } from "../../templates/console-forms";
import { POLICY_FIELDS, policyFormValues, policySettingsPage, YES_NO_FIELDS } from "../../templates/console-policy";
import { UpdatePolicyInput } from "../v1/policies/schema";
import { serviceContext } from "../v1/handler-helpers";
import { signedIn } from "./console-door";
import { whoOf } from "./console-shell";
import { formText } from "./form";
import { limitFormBody, page } from "./shared";
import { formProblems } from "./console-settings-form";

// /console/settings/policy: the organization's policies, read through the services the API reads
// them with, and an owner's change through updatePolicy (the service of PATCH /v1/policies/{id}), so a
// viewer's POST is refused there (403) with nothing written.

export const consolePolicyRouter = new Hono<AppEnv>();

/** The versions a page lists and compares: the newest first. */
const VERSIONS_SHOWN = 100;
const number = (v: string | undefined) => (v && /^[1-9][0-9]{0,8}$/.test(v) ? Number(v) : null);

async function render(c: Context<AppEnv>, opts: { policyId?: string; form?: FormState; saved?: boolean; status?: 200 | 422 }) {
  const ctx = serviceContext(c);
  const who = await whoOf(c);
  const { rows } = await listPolicies(ctx, { page: { number: 1, size: LIMITS.pageSize }, sort: "created_at" });
  const selected: PolicyRow | null = rows.find((p) => p.id === opts.policyId) ?? rows[0] ?? null;
  let versions: PolicyVersionRow[] = [];
  let compare: { from: PolicyVersionRow; to: PolicyVersionRow } | null = null;
  if (selected) {
    versions = (await listPolicyVersions(ctx, selected.id, { page: { number: 1, size: VERSIONS_SHOWN }, sort: "-created_at" })).rows;
    const [from, to] = [number(c.req.query("from")), number(c.req.query("to"))];
    if (from && to) {
      const found = await Promise.all([getPolicyVersion(ctx, selected.id, from), getPolicyVersion(ctx, selected.id, to)]);
      compare = { from: found[0], to: found[1] };
    }
  }
  const form = opts.form ?? emptyForm(selected ? policyFormValues(selected) : {});
  const body = policySettingsPage({ who, policies: rows, selected, versions, compare, form, saved: opts.saved ?? false });
  return page(c, body, opts.status ?? 200);
}

consolePolicyRouter.get("/console/settings/policy", signedIn("page"), (c) =>
  render(c, { policyId: c.req.query("policy"), saved: c.req.query("saved") === "1" }),
);

/** The form's fields as the API's attributes: an empty field is null, a yes/no choice a boolean. */
function attributesOf(values: Record<string, string>): Record<string, unknown> {
  const text = (name: string) => (values[name]!.trim() === "" ? null : values[name]!.trim());
  const days = values.cvd_timeline!.trim();
  return {
    name: text("name"),
    short_description: text("short_description"),
    point_of_contact: text("point_of_contact"),
    contact_url: text("contact_url"),
    safe_harbor: text("safe_harbor"),
    cvd_timeline: days === "" ? null : /^-?[0-9]+$/.test(days) ? Number(days) : days,
    ...Object.fromEntries(YES_NO_FIELDS.map((f) => [f, values[f] === "yes" ? true : values[f] === "no" ? false : null])),
    body: values.body === "" ? null : values.body,
  };
}

consolePolicyRouter.post(
  "/console/settings/policy/:id",
  // The limit first: the door reads the form (its token).
  limitFormBody(LIMITS.policyBodyLength * 4 + 64 * 1024),
  signedIn("page"),
  async (c) => {
    const id = c.req.param("id");
    const sent = await c.req.parseBody();
    const values = Object.fromEntries(Object.keys(POLICY_FIELDS).map((f) => [f, formText(sent, f)]));
    const parsed = UpdatePolicyInput.safeParse({ data: { type: "policy", id, attributes: attributesOf(values) } });
    if (!parsed.success) {
      // Refused as the API refuses it, before any write; the owner check is the service's, so a viewer
      // with a good form is refused by it.
      await getPolicy(serviceContext(c), id);
      return render(c, { policyId: id, form: { values, errors: formProblems(parsed.error.issues, POLICY_FIELDS) }, status: 422 });
    }
    await updatePolicy(serviceContext(c), id, { input: parsed.data.data.attributes as PolicyInput, links: {} });
    return c.redirect(`/console/settings/policy?policy=${encodeURIComponent(id)}&saved=1`, 303);
  },
);
