-- Custom migration (drizzle-kit generate --custom): drizzle-kit cannot express triggers.
-- "severity:<severity>" buckets of vuln_counts, kept like the state buckets of 0008: inside the
-- statement that inserts, re-rates or deletes a vuln, for its organization and for "*" (operators).
-- A vuln without a severity counts in no severity bucket, hence the WHEN clauses (a NULL bucket name
-- would break the NOT NULL of vuln_counts.bucket). One row per statement, as in 0008.
INSERT INTO vuln_counts (organization_id, bucket, count)
SELECT organization_id, 'severity:' || severity, count(*) FROM vulns WHERE severity IS NOT NULL GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO vuln_counts (organization_id, bucket, count)
SELECT '*', 'severity:' || severity, count(*) FROM vulns WHERE severity IS NOT NULL GROUP BY 1, 2;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_severity_insert AFTER INSERT ON vulns
WHEN NEW.severity IS NOT NULL
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (NEW.organization_id, 'severity:' || NEW.severity, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'severity:' || NEW.severity, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_severity_delete AFTER DELETE ON vulns
WHEN OLD.severity IS NOT NULL
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (OLD.organization_id, 'severity:' || OLD.severity, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'severity:' || OLD.severity, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_severity_leave AFTER UPDATE OF severity ON vulns
WHEN OLD.severity IS NOT NULL AND OLD.severity IS NOT NEW.severity
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (OLD.organization_id, 'severity:' || OLD.severity, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'severity:' || OLD.severity, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_severity_enter AFTER UPDATE OF severity ON vulns
WHEN NEW.severity IS NOT NULL AND OLD.severity IS NOT NEW.severity
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (NEW.organization_id, 'severity:' || NEW.severity, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'severity:' || NEW.severity, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
