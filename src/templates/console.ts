import { html } from "hono/html";
import type { MemberRole } from "../db/schema";
import { LIMITS } from "../lib/limits";
import { oneLine } from "../lib/text";
import { CONSOLE_JS_PATH } from "./console-script";
import { consoleDocument, csrfField, type Who } from "./console-layout";
import { document, type Html, when } from "./layout";

// The console's pages: signing in (by an e-mailed link, or a passkey), and the signed-in landing page.
// Every form posts back here; the only script is the console's own file, for passkeys.

const HEADING = "Vulnerability disclosure console";
const FOOTER = html`The console is for the people of organizations that receive reports here.`;
const page = (title: string, main: Html | Html[]) => document(title, main, { heading: HEADING, footer: FOOTER, script: CONSOLE_JS_PATH });

export const ROLE_WORDS: Record<MemberRole, string> = {
  owner: "owner: reads and changes everything, the organization's settings, keys and people included",
  triager: "triager: reads everything, and works the reports, advisories and regulatory reports",
  viewer: "viewer: reads everything of the organization, changes nothing",
};

/** The sign-in page: an address for a link, or a passkey (shown by the script where the browser has them). */
export function signInPage(form: { email?: string; error?: string } = {}): string {
  return page(
    "Sign in",
    html`<h1>Sign in to the console</h1>
<p class="lead">Members of an organization sign in with a link sent to their e-mail address, or with a passkey they added.</p>
${form.error ? html`<div class="error-summary" role="alert"><p>${form.error}</p></div>` : ""}
<form method="post" action="/console/sign-in">
<div class="field">
<label for="email">Your e-mail address</label>
<span class="hint" id="email-hint">The link works once, for ${LIMITS.signInLinkMinutes} minutes, in this browser only.</span>
<input type="email" id="email" name="email" required maxlength="${LIMITS.emailLength}" autocomplete="username webauthn" spellcheck="false"
aria-describedby="email-hint"${form.error ? html` aria-invalid="true"` : ""} value="${form.email ?? ""}">
</div>
<button type="submit">E-mail me a sign-in link</button>
</form>
<form id="passkey-sign-in" data-passkeys hidden>
<h2>Or use a passkey</h2>
<p>If you added a passkey to your account, your browser or phone can sign you in with it.</p>
<button type="submit" class="secondary">Sign in with a passkey</button>
<p id="passkey-sign-in-status" role="status" aria-live="polite"></p>
</form>`,
  );
}

/** What every request for a link is answered, a member's or not. */
export function linkSentPage(): string {
  return page(
    "Check your e-mail",
    html`<h1>Check your e-mail</h1>
<p class="lead">If the address belongs to a member of an organization here, a sign-in link is on its way to it.</p>
<p>Open the link in this browser within ${LIMITS.signInLinkMinutes} minutes, and press the button on its page. A link works once; an
address that is a member of several organizations gets one link for each.</p>
<p class="muted">Nothing came? Check the address, look in your spam folder, or <a href="/console/sign-in">ask again</a>.</p>`,
  );
}

export function tooManySignInsPage(retryAfter: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfter / 60));
  return page(
    "Too many sign-in attempts",
    html`<h1>Too many sign-in attempts</h1>
<p class="lead">There were too many sign-in attempts for this address, or from this network, in the last hour.</p>
<p>Nothing was sent by this answer. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}. A link sent before this still works for its
${LIMITS.signInLinkMinutes} minutes, and a passkey you added signs you in.</p>`,
  );
}

export interface LinkView {
  state: "valid" | "used" | "expired" | "other_browser";
  member: { email: string; organization: string };
}

/** A sign-in link's page: a button that signs in (a GET changes nothing: mail scanners open links), or why it cannot. */
export function linkPage(link: LinkView, action: string): string {
  const organization = oneLine(link.member.organization);
  const again = html`<p><a href="/console/sign-in">Ask for a new link</a>.</p>`;
  switch (link.state) {
    case "valid":
      return page(
        "Sign in",
        html`<h1>Sign in to ${organization}</h1>
<p class="lead">Sign in to ${organization}'s console as ${link.member.email}.</p>
<form method="post" action="${action}"><button type="submit">Sign in</button></form>
<p class="muted">Not you, or not expected? Close this page: nothing happens until the button is pressed.</p>`,
      );
    case "used":
      return page("Link already used", html`<h1>This link was used already</h1><p class="lead">A sign-in link works once.</p>${again}`);
    case "expired":
      return page(
        "Link expired",
        html`<h1>This link has expired</h1><p class="lead">A sign-in link works for ${LIMITS.signInLinkMinutes} minutes.</p>${again}`,
      );
    case "other_browser":
      return page(
        "Open the link in the browser that asked for it",
        html`<h1>Open this link in the browser that asked for it</h1>
<p class="lead">A sign-in link works only in the browser where its address was entered, so a link that reaches someone else is of no use
to them.</p>
<p>Copy the link into that browser, or ask for a new link here.</p>${again}`,
      );
  }
}

export function noLinkPage(): string {
  return page(
    "Not a sign-in link",
    html`<h1>This is not a sign-in link</h1><p class="lead">No sign-in link has this address. Check that it was copied in full.</p>
<p><a href="/console/sign-in">Ask for a new link</a>.</p>`,
  );
}

export interface AccountView {
  who: Who;
  passkeys: { id: string; name: string | null; createdAt: string; lastUsedAt: string | null }[];
}

/** The member's own page: who, for which organization and as what; passkeys. */
export function accountPage({ who, passkeys }: AccountView): string {
  const csrf = csrfField(who);
  return consoleDocument(
    who,
    "account",
    "Your account",
    html`<h1>Your account</h1>
<dl class="terms">
<dt>Signed in as</dt><dd>${who.name ? html`${oneLine(who.name)} (${who.email})` : who.email}</dd>
<dt>Organization</dt><dd>${oneLine(who.organization)}</dd>
<dt>Role</dt><dd>${ROLE_WORDS[who.role]}</dd>
</dl>
<h2>Passkeys</h2>
<p>A passkey signs you in to ${oneLine(who.organization)} without an e-mail, with your device's screen lock or a security key.</p>
${
  passkeys.length
    ? html`<ul class="passkeys">${passkeys.map(
        (p) => html`<li><span><strong>${oneLine(p.name ?? "Passkey")}</strong><br><span class="muted">added ${when(p.createdAt)}${
          p.lastUsedAt ? html`, last used ${when(p.lastUsedAt)}` : ", never used"
        }</span></span>
<form method="post" action="/console/passkeys/${p.id}/delete">${csrf}<button type="submit" class="secondary"
aria-label="Remove the passkey ${oneLine(p.name ?? "Passkey")}">Remove</button></form></li>`,
      )}</ul>`
    : html`<p class="muted">No passkeys yet.</p>`
}
<form id="add-passkey" data-passkeys data-csrf="${who.formToken}" hidden>
<div class="field">
<label for="passkey-name">Name for a new passkey</label>
<span class="hint" id="passkey-name-hint">So you can tell your passkeys apart, e.g. "Work laptop". At most
${LIMITS.passkeysPerMember}.</span>
<input type="text" id="passkey-name" name="name" maxlength="${LIMITS.nameLength}" aria-describedby="passkey-name-hint">
</div>
<button type="submit">Add a passkey</button>
<p id="add-passkey-status" role="status" aria-live="polite"></p>
</form>`,
  );
}
