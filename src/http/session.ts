import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Caller } from "../lib/caller";
import { formTokenOf, randomSecret, sameSecret, SECRET_PATTERN, sha256Hex } from "../lib/crypto";
import { LIMITS } from "../lib/limits";
import type { AppEnv, DoorSession } from "./app-env";
import { fromOwnSite } from "./request-headers";

// The cookies of the console, and the door a signed-in browser comes through: on the console's pages
// and on /v1 (where a request that also carries an API key is the key's). `__Host-` cookies are
// Secure, Path=/ and bound to this host; HttpOnly keeps them from any script.

/** A signed-in browser's session: 256 random bits, whose SHA-256 is the session's row. */
export const SESSION_COOKIE = "__Host-vdp_session";
/**
 * A browser's own mark while it signs in, short-lived: a sign-in link, and a passkey's challenge, work
 * only in the browser whose mark's SHA-256 they were written with.
 */
export const BROWSER_COOKIE = "__Host-vdp_signin";
/** The header the console's script (or anyone using /v1 from the console's session) sends the form token in. */
export const FORM_TOKEN_HEADER = "X-CSRF-Token";

/** What the door needs from below: the session a secret's SHA-256 opens (the one D1 read), and its refresh. */
export interface SessionLookup {
  lookUp: (
    c: Context<AppEnv>,
    tokenHash: string,
  ) => Promise<{ id: string; lastSeenAt: string; organizationName: string; email: string; caller: Caller } | null>;
  touch: (c: Context<AppEnv>, session: { id: string; lastSeenAt: string }) => Promise<void>;
}

/** The session cookie's secret, if the request carries a well-formed one. */
export function sessionSecret(c: Context): string | null {
  const value = getCookie(c, SESSION_COOKIE);
  return value && SECRET_PATTERN.test(value) ? value : null;
}

/** Whether a Cookie header carries a session (read before any middleware parses cookies: the database's start). */
export function carriesSession(cookieHeader: string | undefined): boolean {
  return cookieHeader?.includes(`${SESSION_COOKIE}=`) ?? false;
}

const cookieOptions = { secure: true, httpOnly: true, sameSite: "Lax", path: "/" } as const;

export function setSessionCookie(c: Context, secret: string): void {
  setCookie(c, SESSION_COOKIE, secret, { ...cookieOptions, maxAge: LIMITS.sessionDays * 86_400 });
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, { ...cookieOptions });
}

/**
 * The SHA-256 of this browser's sign-in mark, setting a new mark (for LIMITS.signInLinkMinutes) when
 * it has none: what a link or challenge written now is bound to.
 */
export async function markBrowser(c: Context): Promise<string> {
  let mark = getCookie(c, BROWSER_COOKIE);
  if (!mark || !SECRET_PATTERN.test(mark)) mark = randomSecret();
  setCookie(c, BROWSER_COOKIE, mark, { ...cookieOptions, maxAge: LIMITS.signInLinkMinutes * 60 });
  return sha256Hex(mark);
}

/** The SHA-256 of this browser's sign-in mark, or null without one (reading sets nothing). */
export async function browserMark(c: Context): Promise<string | null> {
  const mark = getCookie(c, BROWSER_COOKIE);
  return mark && SECRET_PATTERN.test(mark) ? sha256Hex(mark) : null;
}

/**
 * Opens the request's session, if its cookie names a live one: the caller becomes the member, and a
 * last sighting older than a few minutes is refreshed after the answer (no write per request).
 * Null for no cookie, or one that no longer opens anything (revoked, idle, expired, unknown).
 */
export async function openSession(c: Context<AppEnv>, door: SessionLookup): Promise<DoorSession | null> {
  const secret = sessionSecret(c);
  if (!secret) return null;
  const found = await door.lookUp(c, await sha256Hex(secret));
  if (!found) return null;
  const session = { id: found.id, secret, organizationName: found.organizationName, email: found.email };
  c.set("caller", found.caller);
  c.set("session", session);
  c.executionCtx.waitUntil(door.touch(c, found).catch(() => {}));
  return session;
}

/** The form token of the request's session (pages put it in their forms). */
export const formToken = (session: DoorSession) => formTokenOf(session.secret);

/**
 * Whether an unsafe request made with the session's cookie may act: from this site, and carrying the
 * session's form token (`X-CSRF-Token`, or a form's `csrf` field). A cookie is sent with requests
 * another site makes the browser send; the token is not.
 */
export async function carriesFormToken(c: Context, session: DoorSession, formField?: string): Promise<boolean> {
  if (!fromOwnSite(c.req)) return false;
  const given = c.req.header(FORM_TOKEN_HEADER) ?? formField;
  return given !== undefined && sameSecret(given, await formToken(session));
}
