import { Hono, type Context } from "hono";
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import type { AppEnv } from "../../http/app-env";
import { browserMark, markBrowser, setSessionCookie } from "../../http/session";
import { DomainError } from "../../lib/domain-errors";
import { sha256Hex } from "../../lib/crypto";
import { LIMITS } from "../../lib/limits";
import { addPasskey, authenticationOptions, registrationOptions, removePasskey, signInWithPasskey } from "../../services/passkeys";
import { onCatalog, routeByName } from "../../http/shard-lookup";
import { named } from "../../services/catalog";
import { serviceContext } from "../v1/handler-helpers";
import { ipOf, relyingParty, sessionOf, signedIn, withRetryAfter } from "./console-door";
import { limitAddress, limitFormBody } from "./shared";

// Passkeys in the console: the script's JSON calls (options, then the browser's answer) to add one
// while signed in and to sign in with one, and the form that removes one. The script is served beside
// the stylesheet (src/routes/pages/index.ts).

export const consolePasskeysRouter = new Hono<AppEnv>();

/** A WebAuthn response is a few KiB; an attestation with a certificate chain, a few more. */
const jsonBody = limitFormBody(64 * 1024);

/** The script's JSON body, or an empty object for anything else (the service refuses what is missing). */
async function body(c: Context): Promise<Record<string, unknown>> {
  const parsed: unknown = await c.req.json().catch(() => ({}));
  return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
}

/** A service's refusal as the script reads it: `{message}` with its status. */
async function answered(c: Context, work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const status = err.kind === "forbidden" ? 403 : err.kind === "not_found" ? 404 : 422;
    return c.json({ message: err.message }, status);
  }
}

consolePasskeysRouter.post("/console/passkeys/options", signedIn("json"), (c) =>
  answered(c, async () => {
    const session = sessionOf(c);
    const options = await registrationOptions(serviceContext(c), relyingParty(c), {
      browserHash: await sha256Hex(session.secret),
      user: `${session.email} (${session.organizationName})`,
    });
    return c.json(options);
  }),
);

consolePasskeysRouter.post("/console/passkeys", signedIn("json"), jsonBody, (c) =>
  answered(c, async () => {
    const input = await body(c);
    const name = typeof input.name === "string" && input.name.trim() ? input.name.trim().slice(0, LIMITS.nameLength) : null;
    const added = await addPasskey(serviceContext(c), relyingParty(c), {
      browserHash: await sha256Hex(sessionOf(c).secret),
      name,
      response: input.response as RegistrationResponseJSON,
    });
    return c.json(added, 201);
  }),
);

consolePasskeysRouter.post("/console/passkeys/:id/delete", signedIn("page"), async (c) => {
  await removePasskey(serviceContext(c), c.req.param("id"));
  return c.redirect("/console/account", 303);
});

// Signing in with a passkey starts as nobody's (a sharded deployment's catalog keeps the challenge).
consolePasskeysRouter.post("/console/sign-in/passkey/options", onCatalog, async (c) => {
  await limitAddress(c, "PUBLIC_READ_RATE_LIMITER");
  return c.json(await authenticationOptions(serviceContext(c), relyingParty(c), await markBrowser(c)));
});

consolePasskeysRouter.post("/console/sign-in/passkey", jsonBody, onCatalog, async (c) => {
  const input = await body(c);
  // A sharded deployment reads the passkey's member's shard, found by its id; an unknown one reads the catalog, which holds none.
  const id = (input.response as { id?: unknown } | undefined)?.id;
  if (typeof id === "string") await routeByName(c, named.passkey(id));
  const outcome = await signInWithPasskey(serviceContext(c), relyingParty(c), {
    browserHash: await browserMark(c),
    ip: ipOf(c),
    response: input.response as AuthenticationResponseJSON,
  });
  if (outcome.ok) {
    setSessionCookie(c, outcome.session.secret);
    return c.json({ redirect: "/console" });
  }
  if (outcome.retryAfter > 0)
    return withRetryAfter(c.json({ message: "Too many sign-in attempts in the last hour: try again later." }, 429), outcome.retryAfter);
  return c.json({ message: "That passkey did not sign you in. Try again, or sign in with an e-mailed link." }, 401);
});
