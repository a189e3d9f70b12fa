import { waitFor } from "../helpers/wait";

// The e-mails `npm run dev` kept: the local simulation of Cloudflare Email Service that wrangler ships
// stores every message sent, and its explorer's API on the dev server's own port lists them (newest
// first) and reads one. What a person running `npm run dev` sees at /cdn-cgi/local/explorer.

export interface KeptMail {
  to: string[];
  from: string;
  subject: string;
  replyTo?: string;
  messageId: string;
  headers?: Record<string, string>;
  text: string;
  html?: string;
}

const STORE = "/cdn-cgi/local/explorer/api/local/email/sending";

async function listed(base: string): Promise<Omit<KeptMail, "text" | "html">[]> {
  const res = await fetch(`${base}${STORE}?per_page=100`);
  if (!res.ok) throw new Error(`the e-mail store answered ${res.status}`);
  return ((await res.json()) as { result: Omit<KeptMail, "text" | "html">[] }).result;
}

/** The newest e-mail kept for `to` whose subject matches, with its text; waits for it (bounded). */
export async function keptMail(base: string, to: string, subject: RegExp): Promise<KeptMail> {
  const found = await waitFor(`an e-mail to ${to} matching ${subject}`, async () =>
    (await listed(base)).find((m) => m.to.includes(to) && subject.test(m.subject)),
  );
  if (!found) throw new Error("unreachable: waitFor returns a found e-mail");
  const res = await fetch(`${base}${STORE}?email_id=${encodeURIComponent(found.messageId.replace(/^<|>$/g, ""))}`);
  const full = ((await res.json()) as { result: KeptMail }).result;
  return { ...found, ...full };
}

/** The first link in `text` to a path under `prefix` (e.g. "/c/"), as a path. */
export function linkTo(text: string, prefix: string): string {
  const m = new RegExp(`https?://[^\\s/]+(${prefix}\\S+)`).exec(text);
  if (!m) throw new Error(`no ${prefix} link in: ${text}`);
  return m[1]!;
}
