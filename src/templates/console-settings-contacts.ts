import { html } from "hono/html";
import type { ContactRow } from "../db/schema";
import { LIMITS } from "../lib/limits";
import { oneLine } from "../lib/text";
import { csrfField, mayConfigure, type Who } from "./console-layout";
import { doneNotice, errorSummary, fieldProblem, type FormState, settingsDocument, textField } from "./console-settings";
import { when } from "./layout";

export const CONTACT_LABELS = { name: "Name", email: "E-mail address", role: "Role" };

const ROLE_WORDS = {
  responder: "Responder: new reports, reporters' comments, approaching deadlines",
  escalation: "Escalation: missed deadlines",
} as const;

export interface ContactsView {
  who: Who;
  contacts: ContactRow[];
  form: FormState;
  done?: string;
}

const confirmation = (c: ContactRow) =>
  c.confirmedAt
    ? html`<span class="state met">Confirmed</span> ${when(c.confirmedAt)}`
    : html`<span class="state soon">Not confirmed yet</span>
<span class="muted">(e-mailed nothing but the confirmation until the link in it is followed)</span>`;

/** The contacts: who is e-mailed, about what, whether they confirmed their address; add and remove for owners. */
export function contactsPage({ who, contacts, form, done }: ContactsView): string {
  const owner = mayConfigure(who);
  const role = fieldProblem(form, "role");
  return settingsDocument(
    who,
    "contacts",
    "Contacts",
    html`${errorSummary(form)}<h1>Contacts</h1>
<p class="lead">The people the platform e-mails about the organization's reports. A new address gets one e-mail asking to confirm it, and
nothing else until it is confirmed.</p>
${doneNotice(done, { added: "Contact added: a confirmation e-mail is on its way to it.", removed: "Contact removed." })}
${
  contacts.length
    ? html`<table class="stack">
<thead><tr><th scope="col">Name</th><th scope="col">E-mail address</th><th scope="col">Role</th><th scope="col">Address</th>${
        owner ? html`<th scope="col"><span class="muted">Remove</span></th>` : ""
      }</tr></thead>
<tbody>${contacts.map(
        (c) => html`<tr><td data-label="Name">${oneLine(c.name)}</td><td data-label="E-mail address">${c.email}</td>
<td data-label="Role">${ROLE_WORDS[c.role]}</td><td data-label="Address">${confirmation(c)}</td>${
          owner
            ? html`<td><form method="post" action="/console/settings/contacts/${c.id}/delete">${csrfField(who)}<button type="submit"
class="secondary" aria-label="Remove the contact ${oneLine(c.name)}">Remove</button></form></td>`
            : ""
        }</tr>`,
      )}</tbody></table>`
    : html`<p class="muted">No contacts yet: nobody is e-mailed about new reports.</p>`
}
${
  owner
    ? html`<h2>Add a contact</h2>
<form method="post" action="/console/settings/contacts">${csrfField(who)}
${textField(form, { name: "name", label: CONTACT_LABELS.name, maxlength: LIMITS.nameLength, required: true })}
${textField(form, { name: "email", label: CONTACT_LABELS.email, type: "email", maxlength: LIMITS.emailLength, required: true })}
<fieldset class="radio"><legend>${CONTACT_LABELS.role}</legend>${role.message}
${Object.entries(ROLE_WORDS).map(
  ([value, words]) => html`<label><input type="radio" name="role" value="${value}"${form.values.role === value ? " checked" : ""}>
${words}</label>`,
)}</fieldset>
<button type="submit">Add the contact</button>
</form>
<p class="muted">At most ${LIMITS.contactsPerOrganization} contacts.</p>`
    : ""
}`,
  );
}
