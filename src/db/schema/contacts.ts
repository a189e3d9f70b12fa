import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamps } from "./columns";
import { organizations } from "./organizations";

/** Who a contact is for: responders hear of new reports and approaching deadlines, escalation of breached ones. */
export const CONTACT_ROLES = ["responder", "escalation"] as const;
export type ContactRole = (typeof CONTACT_ROLES)[number];

/**
 * A person of the organization the platform e-mails. A new or changed address is unconfirmed until its
 * owner follows the link of the confirmation e-mail and presses the page's button; until then it gets
 * nothing else. An address appears once per organization.
 */
export const contacts = sqliteTable(
  "contacts",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    // As given; compared and kept unique lower-cased.
    email: text("email").notNull(),
    role: text("role", { enum: CONTACT_ROLES }).notNull(),
    confirmedAt: text("confirmed_at"),
    ...timestamps,
  },
  (t) => [
    index("contacts_organization_created_at_idx").on(t.organizationId, t.createdAt, t.id),
    index("contacts_organization_updated_at_idx").on(t.organizationId, t.updatedAt, t.id),
    uniqueIndex("contacts_organization_email_idx").on(t.organizationId, t.email),
  ],
);

export type ContactRow = typeof contacts.$inferSelect;
