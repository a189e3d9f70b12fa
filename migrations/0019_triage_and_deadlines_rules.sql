-- Custom migration (drizzle-kit generate --custom): what drizzle-kit cannot express, for 0018.
-- 1. The reports already in: those closed before triage states existed count as resolved, closed when
--    last changed; every report keeps the default promises, due from its arrival; the cron looks once
--    at every open one for deadline alerts.
-- 2. The "triage_state:<state>" buckets of vuln_counts, kept like the state buckets of 0008 inside the
--    statement that inserts, moves or deletes a vuln (q[triage_state_eq] / q[triage_state_in] totals
--    read one row per state). One row per statement, as in 0008.
-- 3. acknowledged_at: the organization's first comment the reporter can read acknowledges the report,
--    whichever door it came through (and the cron looks at its deadlines again: it may be overdue no more).
-- 4. duplicate_of_id: deleting an original leaves its duplicates pointing nowhere.
-- 5. The "overdue:<0|1>" buckets, kept like the others, so q[overdue_eq] totals read one row.
UPDATE `vulns` SET `triage_state` = 'resolved', `closed_at` = `updated_at`, `closed_by` = 'organization' WHERE `processing_state` = 'closed';
--> statement-breakpoint
UPDATE `vulns` SET
  `acknowledge_due_ms` = CAST(round((julianday(`created_at`) - 2440587.5) * 86400000) AS INTEGER) + 72 * 3600000,
  `triage_due_ms` = CAST(round((julianday(`created_at`) - 2440587.5) * 86400000) AS INTEGER) + 240 * 3600000,
  `resolve_due_ms` = CAST(round((julianday(`created_at`) - 2440587.5) * 86400000) AS INTEGER) + 86400000 *
    CASE `severity` WHEN 'critical' THEN 15 WHEN 'high' THEN 30 WHEN 'medium' THEN 60 WHEN 'low' THEN 90 WHEN 'none' THEN 90 END,
  `next_alert_ms` = CASE WHEN `processing_state` = 'open' THEN 0 END;
--> statement-breakpoint
INSERT INTO vuln_counts (organization_id, bucket, count)
SELECT organization_id, 'triage_state:' || triage_state, count(*) FROM vulns GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO vuln_counts (organization_id, bucket, count)
SELECT '*', 'triage_state:' || triage_state, count(*) FROM vulns GROUP BY 1, 2;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_triage_insert AFTER INSERT ON vulns
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (NEW.organization_id, 'triage_state:' || NEW.triage_state, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'triage_state:' || NEW.triage_state, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_triage_delete AFTER DELETE ON vulns
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (OLD.organization_id, 'triage_state:' || OLD.triage_state, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'triage_state:' || OLD.triage_state, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_triage_update AFTER UPDATE OF triage_state ON vulns
WHEN OLD.triage_state IS NOT NEW.triage_state
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (OLD.organization_id, 'triage_state:' || OLD.triage_state, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'triage_state:' || OLD.triage_state, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (NEW.organization_id, 'triage_state:' || NEW.triage_state, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'triage_state:' || NEW.triage_state, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_acknowledged_by_comment AFTER INSERT ON comments
WHEN NEW.visibility = 'reporter' AND NEW.author = 'organization'
BEGIN
  UPDATE vulns SET acknowledged_at = NEW.created_at, next_alert_ms = 0 WHERE id = NEW.vuln_id AND acknowledged_at IS NULL;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_duplicates_orphaned AFTER DELETE ON vulns
BEGIN
  UPDATE vulns SET duplicate_of_id = NULL WHERE duplicate_of_id = OLD.id;
END;
--> statement-breakpoint
INSERT INTO vuln_counts (organization_id, bucket, count)
SELECT organization_id, 'overdue:' || overdue, count(*) FROM vulns GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO vuln_counts (organization_id, bucket, count)
SELECT '*', 'overdue:' || overdue, count(*) FROM vulns GROUP BY 1, 2;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_overdue_insert AFTER INSERT ON vulns
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (NEW.organization_id, 'overdue:' || NEW.overdue, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'overdue:' || NEW.overdue, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_overdue_delete AFTER DELETE ON vulns
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (OLD.organization_id, 'overdue:' || OLD.overdue, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'overdue:' || OLD.overdue, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_overdue_update AFTER UPDATE OF overdue ON vulns
WHEN OLD.overdue IS NOT NEW.overdue
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (OLD.organization_id, 'overdue:' || OLD.overdue, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'overdue:' || OLD.overdue, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (NEW.organization_id, 'overdue:' || NEW.overdue, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'overdue:' || NEW.overdue, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
