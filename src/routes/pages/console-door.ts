import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../../http/app-env";
import { clientIp } from "../../http/rate-limit";
import { routeByName } from "../../http/shard-lookup";
import { carriesFormToken, clearSessionCookie, openSession, type SessionLookup, sessionSecret } from "../../http/session";
import type { DoorSession } from "../../http/app-env";
import { findSession, touchSession } from "../../services/sessions";
import type { RelyingParty } from "../../services/passkeys";
import { CONSOLE_CSP, problemPage } from "../../templates/layout";
import { page } from "./shared";

// What the console's routes share: the session door (also the /v1 door's, in src/app.ts), the checks
// of a signed-in page and of its forms, and the answers of the script's JSON calls.

/** The session lookup: one D1 read (the session joined to its member), and the sparse refresh of its last sighting. */
export const sessionDoor: SessionLookup = {
  lookUp: async (c, hash) => {
    const db = await routeByName(c, { kind: "session", name: hash });
    return db ? findSession(db, hash) : null;
  },
  touch: (c, session) => touchSession(c.var.database.db, session),
};

/** Every console answer carries the console's policy: the pages' own, and its one script. */
export const consoleHeaders: MiddlewareHandler = async function consoleHeadersMiddleware(c, next) {
  await next();
  c.res.headers.set("Content-Security-Policy", CONSOLE_CSP);
};

/** The session of a route that needs one (set by `signedIn`). */
export const sessionOf = (c: Context<AppEnv>): DoorSession => c.var.session!;

/**
 * A console route for signed-in members. Without a live session a page goes to the sign-in page (and
 * a dead cookie is dropped); a POST is refused. A POST must also come from this site with the
 * session's form token (the `csrf` field of a form, or X-CSRF-Token from the script).
 */
export function signedIn(answer: "page" | "json"): MiddlewareHandler<AppEnv> {
  return async function signedInMiddleware(c, next) {
    const session = await openSession(c, sessionDoor);
    if (!session) {
      if (sessionSecret(c)) clearSessionCookie(c);
      if (c.req.method === "GET" || c.req.method === "HEAD") return c.redirect("/console/sign-in", 303);
      return refuse(c, answer, 401, "You are not signed in, or your session ended: sign in again.");
    }
    if (c.req.method === "POST") {
      const field = c.req.header("content-type")?.startsWith("application/x-www-form-urlencoded")
        ? (await c.req.parseBody()).csrf
        : undefined;
      if (!(await carriesFormToken(c, session, typeof field === "string" ? field : undefined)))
        return refuse(
          c,
          answer,
          403,
          "This form can be sent only from its own page in this browser. Nothing was changed: reload the page and try again.",
        );
    }
    await next();
  };
}

function refuse(c: Context, answer: "page" | "json", status: 401 | 403, message: string): Response {
  return answer === "json" ? c.json({ message }, status) : page(c, problemPage("Not sent", message), status);
}

/** The passkeys' relying party: this request's host, as the browser addressed it. */
export function relyingParty(c: Context): RelyingParty {
  const url = new URL(c.req.url);
  return { id: url.hostname, origin: url.origin };
}

export const ipOf = (c: Context) => clientIp(c.req);

/** A 429 of the sign-in budget, with the seconds to wait. */
export function withRetryAfter(res: Response, seconds: number): Response {
  res.headers.set("Retry-After", String(seconds));
  return res;
}
