-- Custom migration (drizzle-kit generate --custom): drizzle-kit cannot express triggers.
-- The audit log is immutable: the database itself refuses to change a row, and to delete one younger than
-- the 400 days it is kept (the cron deletes the older ones).
CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN
  SELECT RAISE(ABORT, 'audit_events are immutable');
END;
--> statement-breakpoint
CREATE TRIGGER audit_events_kept_400_days BEFORE DELETE ON audit_events
WHEN OLD.at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-400 days')
BEGIN
  SELECT RAISE(ABORT, 'audit_events are kept 400 days');
END;
