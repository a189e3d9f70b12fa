import { text } from "drizzle-orm/sqlite-core";

/** RFC 3339 UTC timestamps with milliseconds, stored as text so they sort and compare as strings. */
export const timestamps = {
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
};
