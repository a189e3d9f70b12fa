import { Hono, type Context } from "hono";
import type { AppEnv } from "../../http/app-env";
import { nowIso } from "../../lib/ids";
import { createKey, listKeys, revokeKey } from "../../services/api-keys";
import { emptyForm, type FormState } from "../../templates/console-settings";
import { KEY_LABELS, keyMadePage, keysPage } from "../../templates/console-settings-keys";
import { KeyTermsInput } from "../v1/api-keys/schema";
import { serviceContext } from "../v1/handler-helpers";
import { signedIn } from "./console-door";
import { whoOf } from "./console-shell";
import { page } from "./shared";
import { checkedBy, refusedFields } from "./console-settings-form";
import { formOf } from "./console-shell";

/**
 * /console/settings/api-keys: the API keys API's list, make and revoke, as the signed-in member. A new
 * key is on the answer to its form only (the service keeps its hash; the console's pages are no-store).
 */
export const consoleKeysRouter = new Hono<AppEnv>();

const PATH = "/console/settings/api-keys";
const SHOWN = 100;

async function render(c: Context<AppEnv>, form: FormState, status: 200 | 422 = 200) {
  const { rows, total } = await listKeys(serviceContext(c), { page: { number: 1, size: SHOWN }, sort: "-created_at" });
  return page(c, keysPage({ who: await whoOf(c), keys: rows, total, now: nowIso(), form, done: c.req.query("done") }), status);
}

consoleKeysRouter.get(PATH, signedIn("page"), (c) => render(c, emptyForm({ scopes: "read" })));

/** A datetime-local field's value (no zone: the page says UTC) as the API's date-time; anything else as typed, for the schema to refuse. */
const utc = (local: string) =>
  /^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(local) ? `${local}:00Z` : /T\d\d:\d\d:\d\d(\.\d+)?$/.test(local) ? `${local}Z` : local;

consoleKeysRouter.post(PATH, signedIn("page"), async (c) => {
  const fields = await formOf(c);
  const values = { name: fields.field("name"), expires_at: fields.field("expires_at").trim() };
  const scopes = fields.all("scopes");
  const form = (errors: FormState["errors"], summary?: string[]): FormState => ({
    values: { ...values, scopes: scopes.join(" ") },
    errors,
    summary,
  });
  const candidate = {
    name: values.name.trim() === "" ? null : values.name,
    scopes,
    expires_at: values.expires_at === "" ? null : utc(values.expires_at),
  };
  const checked = checkedBy(KeyTermsInput, candidate, KEY_LABELS);
  if (!checked.ok) return render(c, form(checked.errors), 422);
  let made: Awaited<ReturnType<typeof createKey>>;
  try {
    made = await createKey(serviceContext(c), checked.value, undefined);
  } catch (err) {
    const refused = refusedFields(err, KEY_LABELS);
    return render(c, form(refused.errors, refused.summary), 422);
  }
  // The key is in this answer only: never stored, never shown again, and the page is not cached (no-store).
  return page(c, keyMadePage({ who: await whoOf(c), record: made.record, key: made.key }), 201);
});

consoleKeysRouter.post(`${PATH}/:id/revoke`, signedIn("page"), async (c) => {
  await revokeKey(serviceContext(c), c.req.param("id"));
  return c.redirect(`${PATH}?done=revoked`, 303);
});
