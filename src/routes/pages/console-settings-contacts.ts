import { Hono, type Context } from "hono";
import type { AppEnv } from "../../http/app-env";
import { createContact, deleteContact, listContacts } from "../../services/contacts";
import { CONTACT_LABELS, contactsPage } from "../../templates/console-settings-contacts";
import { emptyForm, type FormState } from "../../templates/console-settings";
import { ContactAttributesInput } from "../v1/contacts/schema";
import { serviceContext } from "../v1/handler-helpers";
import { signedIn } from "./console-door";
import { whoOf } from "./console-shell";
import { page } from "./shared";
import { checkedBy, refusedFields } from "./console-settings-form";
import { formOf } from "./console-shell";

/** /console/settings/contacts: the contacts API's list, add and delete, as the signed-in member. */
export const consoleContactsRouter = new Hono<AppEnv>();

async function render(c: Context<AppEnv>, form: FormState, status: 200 | 409 | 422 = 200) {
  const { rows } = await listContacts(serviceContext(c), { page: { number: 1, size: 100 }, sort: "created_at" });
  return page(c, contactsPage({ who: await whoOf(c), contacts: rows, form, done: c.req.query("done") }), status);
}

consoleContactsRouter.get("/console/settings/contacts", signedIn("page"), (c) => render(c, emptyForm({ role: "responder" })));

consoleContactsRouter.post("/console/settings/contacts", signedIn("page"), async (c) => {
  const fields = await formOf(c);
  const values = { name: fields.field("name"), email: fields.field("email").trim(), role: fields.field("role") };
  const checked = checkedBy(ContactAttributesInput, values, CONTACT_LABELS);
  if (!checked.ok) return render(c, { values, errors: checked.errors }, 422);
  try {
    await createContact(serviceContext(c), checked.value, undefined);
  } catch (err) {
    return render(c, { values, ...refusedFields(err, CONTACT_LABELS) }, 422);
  }
  return c.redirect("/console/settings/contacts?done=added", 303);
});

consoleContactsRouter.post("/console/settings/contacts/:id/delete", signedIn("page"), async (c) => {
  await deleteContact(serviceContext(c), c.req.param("id"));
  return c.redirect("/console/settings/contacts?done=removed", 303);
});
