-- Custom migration (drizzle-kit generate --custom): a data repair.
-- A report closed as duplicate, informative, not applicable or spam owes the world no disclosure, so its
-- disclosure deadline is none. Reports closed so before this rule kept the clock (and turned overdue): drop
-- it, and let the cron look at each of them at once, which sets `overdue` and the next look again.
UPDATE vulns SET disclosure_due_ms = NULL, next_alert_ms = 0
WHERE triage_state IN ('duplicate', 'informative', 'not_applicable', 'spam') AND disclosure_due_ms IS NOT NULL;
