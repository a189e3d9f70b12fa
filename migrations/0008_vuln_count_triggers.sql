-- Custom migration (drizzle-kit generate --custom): drizzle-kit cannot express triggers.
-- vuln_counts is kept by these triggers inside the statement that inserts, moves or deletes a vuln,
-- so a list's total reads one row and is exact however writes interleave. Each change counts for its
-- organization and for "*" (every organization, for operators). One row per statement: D1 refuses
-- compound SELECTs (multi-row VALUES among them) past a few terms.
INSERT INTO vuln_counts (organization_id, bucket, count)
SELECT organization_id, 'all', count(*) FROM vulns GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO vuln_counts (organization_id, bucket, count)
SELECT organization_id, 'processing_state:' || processing_state, count(*) FROM vulns GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO vuln_counts (organization_id, bucket, count)
SELECT organization_id, 'inbox_state:' || inbox_state, count(*) FROM vulns GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO vuln_counts (organization_id, bucket, count)
SELECT '*', 'all', count(*) FROM vulns GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO vuln_counts (organization_id, bucket, count)
SELECT '*', 'processing_state:' || processing_state, count(*) FROM vulns GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO vuln_counts (organization_id, bucket, count)
SELECT '*', 'inbox_state:' || inbox_state, count(*) FROM vulns GROUP BY 1, 2;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_insert AFTER INSERT ON vulns
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (NEW.organization_id, 'all', 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (NEW.organization_id, 'processing_state:' || NEW.processing_state, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (NEW.organization_id, 'inbox_state:' || NEW.inbox_state, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'all', 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'processing_state:' || NEW.processing_state, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'inbox_state:' || NEW.inbox_state, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_delete AFTER DELETE ON vulns
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (OLD.organization_id, 'all', -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (OLD.organization_id, 'processing_state:' || OLD.processing_state, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (OLD.organization_id, 'inbox_state:' || OLD.inbox_state, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'all', -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'processing_state:' || OLD.processing_state, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'inbox_state:' || OLD.inbox_state, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_processing AFTER UPDATE OF processing_state ON vulns
WHEN OLD.processing_state IS NOT NEW.processing_state
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (OLD.organization_id, 'processing_state:' || OLD.processing_state, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (NEW.organization_id, 'processing_state:' || NEW.processing_state, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'processing_state:' || OLD.processing_state, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'processing_state:' || NEW.processing_state, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_inbox AFTER UPDATE OF inbox_state ON vulns
WHEN OLD.inbox_state IS NOT NEW.inbox_state
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (OLD.organization_id, 'inbox_state:' || OLD.inbox_state, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (NEW.organization_id, 'inbox_state:' || NEW.inbox_state, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'inbox_state:' || OLD.inbox_state, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'inbox_state:' || NEW.inbox_state, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
