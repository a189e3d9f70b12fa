import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import worker from "../../src/index";
import { BASE } from "./api";
import { countingD1 } from "./d1-counter";
import type { TestOrganization } from "./factories";
import { withDatabases } from "./shards";
import { mailbox, runMail, type Mailbox } from "./mail";

// The console as a browser uses it: cookies kept between requests, forms sent from the console's own
// pages (Sec-Fetch-Site: same-origin), each browser from an address of its own. And members, written
// straight into D1 (the members API is another part's; this is the smallest thing the sign-in needs).

let sequence = 0;

/** A member of `org`, joined unless said otherwise. */
export async function member(
  org: Pick<TestOrganization, "id">,
  opts: { email?: string; role?: "owner" | "triager" | "viewer"; name?: string | null; joined?: boolean } = {},
) {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const email = opts.email ?? `member-${Date.now().toString(36)}-${sequence++}@acme.example`;
  await env.DB.prepare(
    "INSERT INTO members (id, organization_id, email, name, role, invited_at, joined_at, last_sign_in_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)",
  )
    .bind(
      id,
      org.id,
      email,
      opts.name === undefined ? "Ana Lima" : opts.name,
      opts.role ?? "owner",
      now,
      opts.joined === false ? null : now,
      now,
      now,
    )
    .run();
  return { id, email };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  roundTrips: number;
  json: () => any;
}

/** A browser: its cookie jar, its address, and requests through the Worker's fetch handler. */
export class Browser {
  readonly cookies = new Map<string, string>();
  readonly ip: string;

  /** `base`: where the browser addresses the Worker (the tests' public origin unless said). */
  constructor(
    opts: { ip?: string; base?: string } = {},
    readonly base = opts.base ?? BASE,
  ) {
    this.ip = opts.ip ?? `203.0.113.${(sequence++ % 250) + 1}`;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async request(
    method: string,
    path: string,
    init: { form?: Record<string, string> | URLSearchParams; json?: unknown; headers?: Record<string, string>; env?: Partial<Env> } = {},
  ): Promise<Answer> {
    const headers = new Headers({ "CF-Connecting-IP": this.ip, ...(method === "GET" ? {} : { "Sec-Fetch-Site": "same-origin" }) });
    if (this.cookies.size) headers.set("Cookie", this.cookieHeader());
    let body: string | undefined;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers.set("Content-Type", "application/x-www-form-urlencoded");
    } else if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers.set("Content-Type", "application/json");
    }
    for (const [k, v] of Object.entries(init.headers ?? {})) headers.set(k, v);
    const counter = countingD1(env.DB);
    const ctx = createExecutionContext();
    const discard = { send: async () => {}, sendBatch: async () => {} } as unknown as Queue;
    const res = await worker.fetch(
      new Request(`${this.base}${path}`, { method, headers, body, redirect: "manual" }),
      withDatabases({ ...env, EVENTS: discard, ...init.env }, counter.db, init.env?.DB) as unknown as Env,
      ctx,
    );
    const text = await res.text();
    await waitOnExecutionContext(ctx);
    for (const cookie of res.headers.getSetCookie()) {
      const [pair, ...attributes] = cookie.split(";");
      const [name, value] = [pair!.slice(0, pair!.indexOf("=")), pair!.slice(pair!.indexOf("=") + 1)];
      const gone = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "";
      if (gone) this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
    return { status: res.status, headers: res.headers, text, roundTrips: counter.count(), json: () => JSON.parse(text) };
  }

  get = (path: string, init?: Parameters<Browser["request"]>[2]) => this.request("GET", path, init);
  post = (path: string, init?: Parameters<Browser["request"]>[2]) => this.request("POST", path, init);

  /** The console's form token, read from the landing page as the browser gets it. */
  async formToken(): Promise<string> {
    const landing = await this.get("/console");
    const token = /name="csrf" value="([^"]+)"/.exec(landing.text)?.[1];
    if (!token) throw new Error(`no form token on /console (${landing.status}): ${landing.text.slice(0, 300)}`);
    return token;
  }
}

/** The sign-in links of the newest e-mail to `address`, as paths. */
export function signInLinks(box: Mailbox, address: string): string[] {
  const mail = box.to(address).at(-1);
  if (!mail) throw new Error(`no e-mail to ${address}`);
  return [...(mail.text as string).matchAll(new RegExp(`${env.PUBLIC_ORIGIN}(/console/sign-in/[A-Za-z0-9_-]{43})`, "g"))].map((m) => m[1]!);
}

/** Asks for a link in `browser` and returns its path, read from the e-mail the outbox sent. */
export async function requestLink(browser: Browser, address: string, opts: { typed?: string; box?: Mailbox } = {}): Promise<string> {
  const box = opts.box ?? mailbox();
  const asked = await browser.post("/console/sign-in", { form: { email: opts.typed ?? address } });
  expect(asked.status).toBe(303);
  await runMail(box, []);
  const [link] = signInLinks(box, address);
  if (!link) throw new Error(`no sign-in link in the e-mail to ${address}`);
  return link;
}

/** A browser signed in as `address` (a member's), by the e-mailed link and its page's button. */
export async function signedIn(address: string, browser = new Browser()): Promise<Browser> {
  const link = await requestLink(browser, address);
  const res = await browser.post(link);
  expect(res.status, res.text).toBe(303);
  expect(res.headers.get("Location")).toBe("/console");
  return browser;
}
