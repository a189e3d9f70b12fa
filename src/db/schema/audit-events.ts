import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Who made a change: a key, a signed-in member, an operator's key, a reporter (by their token), or the platform. */
export const AUDIT_ACTOR_TYPES = ["api_key", "member", "operator", "reporter", "system"] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/**
 * One change by anyone, written in the same batch as the change (the unit of work adds it). Immutable:
 * triggers refuse updates, and deletes of rows younger than 400 days (the cron's retention). No
 * foreign key to organizations: the record of a deleted organization's changes outlives it.
 * `changed` names the members a change touched, never the values of secrets or bodies.
 */
export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    // Null for changes of the platform's own (operators' keys and directories).
    organizationId: text("organization_id"),
    at: text("at").notNull(),
    actorType: text("actor_type", { enum: AUDIT_ACTOR_TYPES }).notNull(),
    actorId: text("actor_id"),
    actorName: text("actor_name"),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id"),
    changed: text("changed", { mode: "json" }).$type<string[]>(),
    requestId: text("request_id"),
    ip: text("ip"),
    userAgent: text("user_agent"),
  },
  (t) => [
    index("audit_events_organization_idx").on(t.organizationId, t.id),
    index("audit_events_organization_actor_idx").on(t.organizationId, t.actorId, t.id),
    index("audit_events_organization_action_idx").on(t.organizationId, t.action, t.id),
    index("audit_events_organization_target_idx").on(t.organizationId, t.targetId, t.id),
    index("audit_events_at_idx").on(t.at),
  ],
);

export type AuditEventRow = typeof auditEvents.$inferSelect;
