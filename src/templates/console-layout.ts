import { html } from "hono/html";
import type { MemberRole } from "../db/schema";
import { oneLine } from "../lib/text";
import { CONSOLE_JS_PATH } from "./console-script";
import { document, type Html } from "./layout";

// The signed-in console's one layout: the organization, who is signed in and as what, the sections,
// and sign out, above every page; wide enough for the inbox's table at a desktop's width, one column
// on a phone. Every form of a page carries the session's form token (`csrf`).

/** Who is signed in, as every console page shows it. */
export interface Who {
  name: string | null;
  email: string;
  memberId: string;
  organization: string;
  role: MemberRole;
  formToken: string;
}

export type ConsoleSection = "inbox" | "advisories" | "metrics" | "settings" | "account";

const SECTIONS: [ConsoleSection, string, string][] = [
  ["inbox", "/console", "Inbox"],
  ["advisories", "/console/advisories", "Advisories"],
  ["metrics", "/console/metrics", "Metrics"],
  ["settings", "/console/settings", "Settings"],
  ["account", "/console/account", "Your account"],
];

/** The session's form token, as a form's hidden field. */
export const csrfField = (who: Pick<Who, "formToken">): Html => html`<input type="hidden" name="csrf" value="${who.formToken}">`;

/** Whether the role may change what a section's forms change (the services decide; pages show forms only where they would pass). */
export const mayWork = (who: Pick<Who, "role">) => who.role !== "viewer";
export const mayConfigure = (who: Pick<Who, "role">) => who.role === "owner";

/** A console page: its title, the section it belongs to, its main content. */
export function consoleDocument(who: Who, section: ConsoleSection, title: string, main: Html | Html[]): string {
  const nav = html`<nav class="console" aria-label="Console"><div class="wrap">
<ul>${SECTIONS.map(
    ([name, href, label]) => html`<li><a href="${href}"${name === section ? html` aria-current="page"` : ""}>${label}</a></li>`,
  )}</ul>
<form method="post" action="/console/sign-out">${csrfField(who)}<span class="who">${oneLine(who.name ?? who.email)}, ${who.role}</span>
<button type="submit" class="link">Sign out</button></form>
</div></nav>`;
  return document(`${title} · ${who.organization}`, main, {
    heading: `${who.organization} · console`,
    description: `${title}, in ${who.organization}'s vulnerability disclosure console.`,
    footer: html`The console is for the people of organizations that receive reports here.`,
    // The one script (passkeys) runs only where passkeys are managed.
    script: section === "account" ? CONSOLE_JS_PATH : undefined,
    nav,
    wide: true,
  });
}
