import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamps } from "./columns";
import { organizations } from "./organizations";

/** What a member may do: viewers read, triagers also work the reports, owners also change the settings and the people. */
export const MEMBER_ROLES = ["owner", "triager", "viewer"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/**
 * A person of the organization who signs in (by an e-mailed link or a passkey). Invited until they
 * follow the invitation's link and press its button (`joined_at`); an address is a member once per
 * organization, and one address may be a member of several organizations.
 */
export const members = sqliteTable(
  "members",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    // As given; compared and kept unique lower-cased.
    email: text("email").notNull(),
    name: text("name"),
    role: text("role", { enum: MEMBER_ROLES }).notNull(),
    invitedAt: text("invited_at").notNull(),
    joinedAt: text("joined_at"),
    lastSignInAt: text("last_sign_in_at"),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("members_organization_email_idx").on(t.organizationId, t.email),
    index("members_organization_created_at_idx").on(t.organizationId, t.createdAt, t.id),
    index("members_email_idx").on(t.email),
  ],
);

export type MemberRow = typeof members.$inferSelect;

/**
 * A one-time sign-in link: its SHA-256, the member it signs in, and the SHA-256 of the short-lived
 * cookie of the browser that asked for it (the link signs in that browser only). Used once, within
 * 15 minutes.
 */
export const signInLinks = sqliteTable(
  "sign_in_links",
  {
    tokenHash: text("token_hash").primaryKey(),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    browserHash: text("browser_hash").notNull(),
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("sign_in_links_member_idx").on(t.memberId)],
);

export type SignInLinkRow = typeof signInLinks.$inferSelect;

/**
 * Sign-in requests that led nowhere (an unknown address, a wrong or spent link, a failed passkey),
 * counted per address and per client IP over the last hour; the cron drops rows older than a day.
 * `subject` is a SHA-256 (of the lower-cased address or of the IP), never the address itself.
 */
export const signInFailures = sqliteTable(
  "sign_in_failures",
  {
    id: text("id").primaryKey(),
    subject: text("subject").notNull(),
    at: text("at").notNull(),
  },
  (t) => [index("sign_in_failures_subject_at_idx").on(t.subject, t.at)],
);

/**
 * A signed-in browser: the SHA-256 of its cookie's 256 random bits, never the bits. Ends at
 * `expires_at` (absolute), after 12 idle hours (`last_seen_at`), or when revoked (sign-out, an owner's
 * revocation, the member removed or their role changed).
 */
export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull().unique(),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    // How it signed in.
    method: text("method", { enum: ["email_link", "passkey"] }).notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
    lastSeenAt: text("last_seen_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    revokedAt: text("revoked_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("sessions_member_idx").on(t.memberId, t.createdAt)],
);

export type SessionRow = typeof sessions.$inferSelect;

/** A member's passkey (a WebAuthn credential): its id and public key as base64url, and the signature counter. */
export const passkeys = sqliteTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    memberId: text("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name"),
    publicKey: text("public_key").notNull(),
    counter: integer("counter").notNull().default(0),
    transports: text("transports", { mode: "json" }).$type<string[]>(),
    lastUsedAt: text("last_used_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("passkeys_member_idx").on(t.memberId)],
);

export type PasskeyRow = typeof passkeys.$inferSelect;

/**
 * A WebAuthn challenge handed to a browser (registration or sign-in), used once within five minutes;
 * bound, like a sign-in link, to the SHA-256 of the browser's short-lived cookie.
 */
export const webauthnChallenges = sqliteTable("webauthn_challenges", {
  challenge: text("challenge").primaryKey(),
  purpose: text("purpose", { enum: ["registration", "authentication"] }).notNull(),
  // The member registering a passkey; null for a sign-in, which learns the member from the passkey.
  memberId: text("member_id").references(() => members.id, { onDelete: "cascade" }),
  browserHash: text("browser_hash").notNull(),
  expiresAt: text("expires_at").notNull(),
});
