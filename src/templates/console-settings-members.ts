import { html } from "hono/html";
import { MEMBER_ROLES, type MemberRole, type MemberRow } from "../db/schema";
import { LIMITS } from "../lib/limits";
import { oneLine } from "../lib/text";
import { ROLE_WORDS } from "./console";
import { csrfField, mayConfigure, type Who } from "./console-layout";
import { doneNotice, errorSummary, fieldProblem, type FormState, settingsDocument, textField } from "./console-settings";
import { when } from "./layout";

export const MEMBER_LABELS = { email: "E-mail address", name: "Name", role: "Role" };

export interface MembersView {
  who: Who;
  members: MemberRow[];
  form: FormState;
  done?: string;
}

const DONE = {
  invited: "Member invited: the invitation e-mail is on its way.",
  role: "Role changed. The member's sessions ended: they sign in again with their new role.",
  removed: "Member removed, and signed out everywhere.",
  reinvited: "Invitation sent again.",
  "signed-out": "The member's sessions ended: they sign in again.",
};

const joined = (m: MemberRow) =>
  m.joinedAt
    ? html`<span class="state met">Joined</span> ${when(m.joinedAt)}`
    : html`<span class="state soon">Invited, not joined yet</span> ${when(m.invitedAt)}`;

const label = (m: MemberRow) => oneLine(m.name ?? m.email);

function roleOptions(selected: string): ReturnType<typeof html>[] {
  return MEMBER_ROLES.map((r) => html`<option value="${r}"${r === selected ? " selected" : ""}>${r}</option>`);
}

/** One member's changes: role, invitation again (not joined yet), end sessions, remove. */
function memberActions(who: Who, m: MemberRow) {
  const csrf = csrfField(who);
  const base = `/console/settings/members/${m.id}`;
  return html`<div class="actions">
<form method="post" action="${base}/role">${csrf}<label for="role-${m.id}">Role of ${label(m)}</label>
<select id="role-${m.id}" name="role">${roleOptions(m.role)}</select> <button type="submit" class="secondary">Change role</button></form>
${
  m.joinedAt
    ? ""
    : html`<form method="post" action="${base}/invitation">${csrf}<button type="submit" class="secondary"
aria-label="Send the invitation again to ${label(m)}">Send the invitation again</button></form>`
}
<form method="post" action="${base}/sessions">${csrf}<button type="submit" class="secondary"
aria-label="End their sessions: ${label(m)}">End their sessions</button></form>
<form method="post" action="${base}/delete">${csrf}<button type="submit" class="secondary"
aria-label="Remove ${label(m)} from the organization">Remove</button></form>
</div>`;
}

/** The members: who, as what, invited or joined, last sign-in; an owner invites and changes them. */
export function membersPage({ who, members, form, done }: MembersView): string {
  const owner = mayConfigure(who);
  const role = fieldProblem(form, "role");
  return settingsDocument(
    who,
    "members",
    "Members",
    html`${errorSummary(form)}<h1>Members</h1>
<p class="lead">The people who sign in to this console. ${owner ? "A new member is e-mailed an invitation to join." : ""}</p>
${doneNotice(done, DONE)}
<table class="stack">
<thead><tr><th scope="col">Member</th><th scope="col">Role</th><th scope="col">Invitation</th><th scope="col">Last sign-in</th></tr></thead>
<tbody>${members.map(
      (m) => html`<tr><td data-label="Member">${m.name ? html`<strong>${oneLine(m.name)}</strong><br>` : ""}${m.email}${
        m.id === who.memberId ? html` <span class="muted">(you)</span>` : ""
      }</td>
<td data-label="Role">${m.role}</td><td data-label="Invitation">${joined(m)}</td>
<td data-label="Last sign-in">${m.lastSignInAt ? when(m.lastSignInAt) : "Never"}</td></tr>${
        owner ? html`<tr><td colspan="4" data-label="Change">${memberActions(who, m)}</td></tr>` : ""
      }`,
    )}</tbody></table>
<p class="muted">An organization keeps at least one owner. Changing a member's role ends their sessions.</p>
${
  owner
    ? html`<h2>Invite a member</h2>
<form method="post" action="/console/settings/members">${csrfField(who)}
${textField(form, { name: "email", label: MEMBER_LABELS.email, type: "email", maxlength: LIMITS.emailLength, required: true })}
${textField(form, { name: "name", label: `${MEMBER_LABELS.name} (optional)`, maxlength: LIMITS.nameLength })}
<fieldset class="radio"><legend>${MEMBER_LABELS.role}</legend>${role.message}
${MEMBER_ROLES.map(
  (r: MemberRole) => html`<label><input type="radio" name="role" value="${r}"${form.values.role === r ? " checked" : ""}>
${ROLE_WORDS[r]}</label>`,
)}</fieldset>
<button type="submit">Invite</button>
</form>
<p class="muted">At most ${LIMITS.membersPerOrganization} members.</p>`
    : ""
}`,
  );
}
