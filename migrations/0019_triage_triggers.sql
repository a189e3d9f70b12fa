-- Custom migration (drizzle-kit generate --custom): drizzle-kit cannot express triggers.
-- The "triage_state:<state>" buckets of vuln_counts, kept like the state buckets of 0008 inside the
-- statement that inserts, moves or deletes a vuln, so q[triage_state_eq] / q[triage_state_in] totals
-- read one row per state. And acknowledged_at: the organization's first comment the reporter can read
-- acknowledges the report, whichever door it came through. One row per statement, as in 0008.
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
  UPDATE vulns SET acknowledged_at = NEW.created_at WHERE id = NEW.vuln_id AND acknowledged_at IS NULL;
END;
