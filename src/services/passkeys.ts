import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { and, asc, eq, gt, sql } from "drizzle-orm";
import { members, organizations, passkeys, webauthnChallenges } from "../db/schema";
import { changedRows, whenRefused } from "../db/queries";
import { fromBase64, toBase64 } from "../lib/crypto";
import { Forbidden, Invalid, NotFound, attribute } from "../lib/domain-errors";
import { nowIso } from "../lib/ids";
import { LIMITS } from "../lib/limits";
import type { ServiceContext } from "./context";
import { commitSession, sessionPlan, type StartedSession } from "./sessions";
import { platformDb, recordSignInFailure, signingMember, type SigningMember } from "./sign-in";
import { commit, Plan } from "./unit-of-work";
import { named, withNames } from "./catalog";

// A member's passkeys (WebAuthn credentials, through @simplewebauthn/server, loaded on first use: most
// requests never need it). A challenge is used once, within LIMITS.webauthnChallengeMinutes, by the
// browser it was handed to (a registration: the session's; a sign-in: the browser's sign-in mark).
// A passkey signs in to the one organization its member belongs to.

const webauthn = () => import("@simplewebauthn/server");

/** Who the passkeys are for: this host (the rpID) and its origin, as the browser sees them. */
export interface RelyingParty {
  id: string;
  origin: string;
}

const RP_NAME = "Vulnerability disclosure console";

function signedIn(ctx: ServiceContext): { id: string; organizationId: string } {
  const member = ctx.caller.kind === "member" ? ctx.caller.member : undefined;
  if (!member || !ctx.caller.organizationId) throw new Forbidden("Passkeys belong to a signed-in member: sign in to the console first.");
  return { id: member.id, organizationId: ctx.caller.organizationId };
}

const challengeExpiry = () => new Date(Date.now() + LIMITS.webauthnChallengeMinutes * 60_000).toISOString();

/** The challenge a browser's response answers (from its client data, which the verification checks again). */
function answeredChallenge(response: { response?: { clientDataJSON?: unknown } }): string | null {
  const raw = typeof response.response?.clientDataJSON === "string" ? fromBase64(response.response.clientDataJSON) : null;
  if (!raw) return null;
  try {
    const challenge = (JSON.parse(new TextDecoder().decode(raw)) as { challenge?: unknown }).challenge;
    return typeof challenge === "string" ? challenge : null;
  } catch {
    return null;
  }
}

/** Takes a challenge, once: deleted in the write that finds it, so a second use finds nothing. */
function spend(
  ctx: Pick<ServiceContext, "db">,
  { challenge, browserHash, purpose }: { challenge: string; browserHash: string; purpose: "registration" | "authentication" },
) {
  return ctx.db
    .delete(webauthnChallenges)
    .where(
      and(
        eq(webauthnChallenges.challenge, challenge),
        eq(webauthnChallenges.purpose, purpose),
        eq(webauthnChallenges.browserHash, browserHash),
        gt(webauthnChallenges.expiresAt, nowIso()),
      ),
    )
    .returning({ memberId: webauthnChallenges.memberId });
}

export function listPasskeys(ctx: ServiceContext) {
  const me = signedIn(ctx);
  return ctx.db
    .select({ id: passkeys.id, name: passkeys.name, createdAt: passkeys.createdAt, lastUsedAt: passkeys.lastUsedAt })
    .from(passkeys)
    .where(eq(passkeys.memberId, me.id))
    .orderBy(asc(passkeys.createdAt));
}

/** The options for the browser to create a passkey for the signed-in member (`user`: how its pickers name it). */
export async function registrationOptions(ctx: ServiceContext, rp: RelyingParty, who: { browserHash: string; user: string }) {
  const me = signedIn(ctx);
  const existing = await ctx.db
    .select({ id: passkeys.id, transports: passkeys.transports })
    .from(passkeys)
    .where(eq(passkeys.memberId, me.id));
  if (existing.length >= LIMITS.passkeysPerMember)
    throw Invalid.at(attribute("name"), `You have ${LIMITS.passkeysPerMember} passkeys, as many as a member may; remove one first.`);
  const { generateRegistrationOptions } = await webauthn();
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: rp.id,
    userName: who.user,
    userID: new Uint8Array(new TextEncoder().encode(me.id)),
    attestationType: "none",
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: (p.transports ?? undefined) as never })),
    // Discoverable: the sign-in page asks for no address first.
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
  });
  await ctx.db.insert(webauthnChallenges).values({
    challenge: options.challenge,
    purpose: "registration",
    memberId: me.id,
    browserHash: who.browserHash,
    expiresAt: challengeExpiry(),
  });
  return options;
}

/** Verifies the browser's new credential against its challenge and keeps it as the member's passkey. */
export async function addPasskey(
  ctx: ServiceContext,
  rp: RelyingParty,
  input: { browserHash: string; name: string | null; response: RegistrationResponseJSON },
): Promise<{ id: string }> {
  const me = signedIn(ctx);
  const refused = () => Invalid.at(attribute("response"), "The passkey could not be verified; nothing was added. Start again.");
  const challenge = answeredChallenge(input.response);
  const spent = challenge ? await spend(ctx, { challenge, browserHash: input.browserHash, purpose: "registration" }) : [];
  if (spent[0]?.memberId !== me.id) throw refused();
  const { verifyRegistrationResponse } = await webauthn();
  const verified = await verifyRegistrationResponse({
    response: input.response,
    expectedChallenge: challenge!,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: false,
  }).catch(() => null);
  if (!verified?.verified) throw refused();
  const { credential } = verified.registrationInfo;
  const at = nowIso();
  // Counted again inside the insert: a member at the limit gets a NULL member, refused with the batch.
  const insert = ctx.db.insert(passkeys).select(
    ctx.db
      .select({
        id: sql<string>`${credential.id}`.as("id"),
        memberId: sql<string>`CASE WHEN count(*) < ${LIMITS.passkeysPerMember} THEN ${me.id} END`.as("member_id"),
        organizationId: sql<string>`${me.organizationId}`.as("organization_id"),
        name: sql<string | null>`${input.name}`.as("name"),
        publicKey: sql<string>`${toBase64(credential.publicKey, "base64url")}`.as("public_key"),
        counter: sql<number>`${credential.counter}`.as("counter"),
        transports: sql<string>`${JSON.stringify(credential.transports ?? [])}`.as("transports"),
        lastUsedAt: sql<null>`null`.as("last_used_at"),
        createdAt: sql<string>`${at}`.as("created_at"),
      })
      .from(passkeys)
      .where(eq(passkeys.memberId, me.id)),
  );
  const plan = new Plan(null).add(insert).audits({ action: "passkey.create", target: { type: "passkey", id: credential.id } });
  await whenRefused(
    () => withNames(ctx, { organizationId: me.organizationId, names: [named.passkey(credential.id)] }, () => commit(ctx, plan)),
    () => {
      throw Invalid.at(attribute("name"), `You have ${LIMITS.passkeysPerMember} passkeys, as many as a member may; remove one first.`);
    },
  );
  return { id: credential.id };
}

/** Removes one of the signed-in member's own passkeys. */
export async function removePasskey(ctx: ServiceContext, id: string): Promise<void> {
  const me = signedIn(ctx);
  const { results } = await commit(
    ctx,
    new Plan(null)
      .add(ctx.db.delete(passkeys).where(and(eq(passkeys.id, id), eq(passkeys.memberId, me.id))))
      .audits({ action: "passkey.delete", target: { type: "passkey", id } }),
  );
  if (changedRows(results[0]) === 0) throw new NotFound("passkey", "You have no passkey with that id.");
  await ctx.catalog?.release([named.passkey(id)]);
}

/** The options for the browser to sign in with any passkey of this site (discoverable: no address asked). */
export async function authenticationOptions(ctx: ServiceContext, rp: RelyingParty, browserHash: string) {
  const { generateAuthenticationOptions } = await webauthn();
  const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: "preferred", allowCredentials: [] });
  // Nobody's yet (the passkey will say whose): a sharded deployment keeps it in its catalog.
  await platformDb(ctx)
    .insert(webauthnChallenges)
    .values({ challenge: options.challenge, purpose: "authentication", memberId: null, browserHash, expiresAt: challengeExpiry() });
  return options;
}

export type PasskeySignIn = { ok: true; session: StartedSession } | { ok: false; retryAfter: number };

/**
 * Signs in with a passkey: the challenge spent (once, this browser's), the assertion verified against
 * the stored public key, and in one batch the counter moved on (only from the value verified against,
 * so one assertion cannot start two sessions) and the session started. A failure is counted and,
 * where the passkey is known, audited in its member's organization.
 */
export async function signInWithPasskey(
  ctx: ServiceContext,
  rp: RelyingParty,
  attempt: { browserHash: string | null; ip: string; response: AuthenticationResponseJSON },
): Promise<PasskeySignIn> {
  const challenge = answeredChallenge(attempt.response);
  const id = typeof attempt.response?.id === "string" ? attempt.response.id : "";
  const spending = spend(
    { db: platformDb(ctx) },
    { challenge: challenge ?? "", browserHash: attempt.browserHash ?? "", purpose: "authentication" },
  );
  const finding = ctx.db
    .select({
      // Aliased: a batch's rows are keyed by column name, and the member has an `id` too.
      passkey: {
        id: sql<string>`${passkeys.id}`.as("passkey_id"),
        publicKey: passkeys.publicKey,
        counter: passkeys.counter,
        transports: passkeys.transports,
      },
      member: signingMember,
    })
    .from(passkeys)
    .innerJoin(members, eq(members.id, passkeys.memberId))
    .innerJoin(organizations, eq(organizations.id, members.organizationId))
    .where(eq(passkeys.id, id));
  // One round trip either way: a sharded deployment spends the challenge in its catalog while the passkey's shard is read.
  const [spent, found] = ctx.catalog ? await Promise.all([spending, finding]) : await ctx.db.batch([spending, finding]);
  const row = found[0];
  const member: SigningMember | undefined = row?.member;
  const failed = async (): Promise<PasskeySignIn> => ({
    ok: false,
    retryAfter: await recordSignInFailure(ctx, { ip: attempt.ip, ...(member && { member }) }),
  });
  const stored = row && fromBase64(row.passkey.publicKey);
  const publicKey = stored && new Uint8Array(stored);
  if (!challenge || spent.length === 0 || !row || !publicKey) return failed();
  const { verifyAuthenticationResponse } = await webauthn();
  const verified = await verifyAuthenticationResponse({
    response: attempt.response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: { id: row.passkey.id, publicKey, counter: row.passkey.counter, transports: (row.passkey.transports ?? undefined) as never },
    requireUserVerification: false,
  }).catch(() => null);
  if (!verified?.verified) return failed();
  const plan = new Plan(null).add(
    ctx.db
      .update(passkeys)
      .set({ counter: verified.authenticationInfo.newCounter, lastUsedAt: nowIso() })
      .where(and(eq(passkeys.id, row.passkey.id), eq(passkeys.counter, row.passkey.counter))),
  );
  const session = await sessionPlan(ctx, plan, { member: row.member, method: "passkey", guard: sql`changes() > 0` });
  return whenRefused<PasskeySignIn>(async () => {
    await commitSession(ctx, plan, session);
    return { ok: true, session };
  }, failed);
}
