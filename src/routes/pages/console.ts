import { Hono, type Context } from "hono";
import type { AppEnv } from "../../http/app-env";
import { database } from "../../http/middleware";
import { browserMark, clearSessionCookie, markBrowser, openSession, setSessionCookie } from "../../http/session";
import { SECRET_PATTERN, sha256Hex } from "../../lib/crypto";
import { onCatalog, routeBy } from "../../http/shard-lookup";
import { LIMITS } from "../../lib/limits";
import { endSession, signInWithLink } from "../../services/sessions";
import { findSignInLink } from "../../services/sign-in";
import { requestSignInLinks } from "../../services/sign-in-links";
import { named } from "../../services/catalog";
import { listPasskeys } from "../../services/passkeys";
import { accountPage, linkPage, linkSentPage, noLinkPage, signInPage, tooManySignInsPage } from "../../templates/console";
import { serviceContext } from "../v1/handler-helpers";
import { consoleHeaders, ipOf, sessionDoor, signedIn, withRetryAfter } from "./console-door";
import { whoOf } from "./console-shell";
import { consolePasskeysRouter } from "./console-passkeys";
import { consoleInboxRouter } from "./console-inbox";
import { consoleReportRouter } from "./console-report";
import { consoleSettingsRouter } from "./console-settings";
import { consoleCannedRouter } from "./console-canned";
import { consoleAdvisoriesRouter } from "./console-advisories";
import { consoleMetricsRouter } from "./console-metrics";
import { consolePolicyRouter } from "./console-policy";
import { consoleBriefsRouter } from "./console-briefs";
import { limitAddress, limitFormBody, memberPage, page, privatePage, sameSiteForms } from "./shared";

/**
 * The console for an organization's members, at /console: signing in by an e-mailed link (or a
 * passkey, console-passkeys.ts), the signed-in landing page, signing out. Every page is private (no
 * store, no referrer: a link's address is its key); every POST comes from this site, and a signed-in
 * one carries the session's form token too. A GET changes nothing, so a mail scanner opening a link
 * spends nothing.
 */
export const consoleRouter = new Hono<AppEnv>();
// ("/console/*" matches /console itself too.)
consoleRouter.use("/console/*", consoleHeaders, memberPage, sameSiteForms, database());
// Sign-in links carry their secret in the address: never indexed, never passed on as a referrer.
consoleRouter.use("/console/sign-in/*", privatePage);
consoleRouter.route("/", consolePasskeysRouter);
consoleRouter.route("/", consoleInboxRouter);
consoleRouter.route("/", consoleReportRouter);
consoleRouter.route("/", consoleSettingsRouter);
consoleRouter.route("/", consoleCannedRouter);
consoleRouter.route("/", consoleAdvisoriesRouter);
consoleRouter.route("/", consoleMetricsRouter);
consoleRouter.route("/", consolePolicyRouter);
consoleRouter.route("/", consoleBriefsRouter);

/**
 * Whether this request may use a link the local seed wrote for any browser (`npm run dev` prints it
 * beside the demo key, so a newcomer is in the console in one click; no cookie can be bound to a
 * browser that has not visited yet). Only where the Worker runs under `npm run dev`, which sets
 * DEV_SEED_SIGN_IN (never set in wrangler.toml, so no deployment has it), and the request's host is
 * this machine's loopback. Such a link is still used once and expires; only the local seed writes one.
 */
export function acceptsAnyBrowser(c: Context<AppEnv>): boolean {
  return c.env.DEV_SEED_SIGN_IN === "true" && /^(localhost|127\.0\.0\.1|\[::1\])$/.test(new URL(c.req.url).hostname);
}

consoleRouter.get("/console/account", signedIn("page"), async (c) => {
  const passkeys = await listPasskeys(serviceContext(c));
  return page(c, accountPage({ who: await whoOf(c), passkeys }));
});

consoleRouter.post("/console/sign-out", signedIn("page"), async (c) => {
  await endSession(serviceContext(c));
  clearSessionCookie(c);
  return c.redirect("/console/sign-in", 303);
});

consoleRouter.get("/console/sign-in", async (c) => {
  await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
  if (await openSession(c, sessionDoor)) return c.redirect("/console", 303);
  return page(c, signInPage());
});

// Asking for links spans organizations (a sharded deployment asks every shard; the budget is the catalog's).
consoleRouter.post("/console/sign-in", limitFormBody(LIMITS.emailLength * 4 + 1024), onCatalog, async (c) => {
  const form = await c.req.parseBody();
  const email = typeof form.email === "string" ? form.email.trim() : "";
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > LIMITS.emailLength)
    return page(c, signInPage({ email, error: "Enter your e-mail address, as name@example.com." }), 422);
  const outcome = await requestSignInLinks(serviceContext(c), { email, ip: ipOf(c), browserHash: await markBrowser(c) });
  if (outcome.status === "limited") return withRetryAfter(page(c, tooManySignInsPage(outcome.retryAfter), 429), outcome.retryAfter);
  return c.redirect("/console/sign-in/sent", 303);
});

consoleRouter.get("/console/sign-in/sent", (c) => page(c, linkSentPage()));

/** A link's page: its button; gone once used or expired; refused in a browser that did not ask for it. */
const LINK_STATUS = { valid: 200, used: 410, expired: 410, other_browser: 403 } as const;

// In a sharded deployment a link's page reads its member's shard, found by the link's SHA-256.
const byLink = routeBy(async (c) => {
  const token = c.req.param("token") ?? "";
  return SECRET_PATTERN.test(token) ? named.signInLink(await sha256Hex(token)) : null;
});

// The link's page shows whether it would sign this browser in, and its button; only the POST does.
consoleRouter.get("/console/sign-in/:token", byLink, async (c) => {
  await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
  const token = c.req.param("token");
  const found = SECRET_PATTERN.test(token)
    ? await findSignInLink(c.var.database.db, token, { hash: await browserMark(c), anyBrowser: acceptsAnyBrowser(c) })
    : null;
  if (!found) return page(c, noLinkPage(), 404);
  return page(c, linkPage({ state: found.state, member: found.member }, c.req.path), LINK_STATUS[found.state]);
});

consoleRouter.post("/console/sign-in/:token", byLink, async (c) => {
  const token = c.req.param("token");
  const outcome = await signInWithLink(serviceContext(c), {
    token: SECRET_PATTERN.test(token) ? token : "",
    browserHash: await browserMark(c),
    anyBrowser: acceptsAnyBrowser(c),
    ip: ipOf(c),
  });
  if (outcome.ok) {
    setSessionCookie(c, outcome.session.secret);
    return c.redirect("/console", 303);
  }
  if (outcome.retryAfter > 0) return withRetryAfter(page(c, tooManySignInsPage(outcome.retryAfter), 429), outcome.retryAfter);
  if (outcome.state === "unknown" || !outcome.member) return page(c, noLinkPage(), 404);
  return page(c, linkPage({ state: outcome.state, member: outcome.member }, c.req.path), LINK_STATUS[outcome.state]);
});
