import { html } from "hono/html";
import { oneLine } from "../lib/text";
import { document } from "./layout";

// The pages e-mails link to. Each acts only on its button (a POST): mail scanners that fetch
// every link in a message must confirm and stop nothing.

const ROLE_WORDS = {
  responder: "a responder: told of new reports, reporters' comments and deadlines coming up",
  escalation: "an escalation contact: told when a promised deadline is missed",
} as const;

export function confirmPage(
  c: { email: string; role: keyof typeof ROLE_WORDS; organization: string; confirmedAt: string | null },
  action: string,
  done = false,
): string {
  if (done || c.confirmedAt)
    return document(
      "Address confirmed",
      html`<h1>Address confirmed</h1>
<p class="lead">${c.email} is confirmed as ${ROLE_WORDS[c.role]}, for ${oneLine(c.organization)}.</p>
<p>You can close this page. The organization can remove this address at any time.</p>`,
    );
  return document(
    "Confirm your address",
    html`<h1>Confirm your address</h1>
<p class="lead">${oneLine(c.organization)} added ${c.email} as ${ROLE_WORDS[c.role]}.</p>
<p>The e-mails name a report and link to it in the API; they never carry what a report says.</p>
<form method="post" action="${action}"><button type="submit">Confirm ${c.email}</button></form>
<p class="muted">Not you, or not expected? Close this page: nothing is sent to an address that is not confirmed.</p>`,
  );
}

const MEMBER_ROLE_WORDS = {
  owner: "an owner: everything, the organization's settings and people included",
  triager: "a triager: reads everything, works the reports and advisories",
  viewer: "a viewer: reads everything, changes nothing",
} as const;

export function invitationPage(
  m: { email: string; role: keyof typeof MEMBER_ROLE_WORDS; organization: string; joinedAt: string | null },
  action: string,
  done = false,
): string {
  if (done || m.joinedAt)
    return document(
      "Invitation accepted",
      html`<h1>Invitation accepted</h1>
<p class="lead">${m.email} is a member of ${oneLine(m.organization)}, as ${MEMBER_ROLE_WORDS[m.role]}.</p>
<p>To sign in, <a href="/console/sign-in">open the sign-in page</a> and give this address: you get a sign-in link by e-mail, no
password.</p>`,
    );
  return document(
    "Accept the invitation",
    html`<h1>Accept the invitation</h1>
<p class="lead">${oneLine(m.organization)} invited ${m.email} to work on the vulnerability reports it receives, as
${MEMBER_ROLE_WORDS[m.role]}.</p>
<form method="post" action="${action}"><button type="submit">Accept as ${m.email}</button></form>
<p class="muted">Not you, or not expected? Close this page: nothing changes until the button is pressed.</p>`,
  );
}

export function unsubscribePage(r: { shortcode: string; organization: string; notifyReporter: boolean }, action: string): string {
  if (!r.notifyReporter)
    return document(
      "No more e-mail",
      html`<h1>No more e-mail about this report</h1>
<p class="lead">You will get no more e-mail about report ${r.shortcode} to ${oneLine(r.organization)}.</p>
<p>Your report is unchanged: its page (the link in your receipt e-mail) still shows its state and the conversation.</p>`,
    );
  return document(
    "Stop e-mails about this report",
    html`<h1>Stop e-mails about this report</h1>
<p class="lead">You get an e-mail when ${oneLine(r.organization)} answers or your report ${r.shortcode} changes state.</p>
<form method="post" action="${action}"><button type="submit">Stop these e-mails</button></form>
<p class="muted">Your report is not affected: its page still shows everything.</p>`,
  );
}
