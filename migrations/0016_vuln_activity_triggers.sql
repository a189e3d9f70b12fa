-- Custom migration (drizzle-kit generate --custom): drizzle-kit cannot express triggers.
-- A report's activity (0015): a reporter-visible comment or any file is the last thing its author's
-- side said, whichever door it came through (the API, the reporter's API, the form, later e-mail).
-- And the vuln_counts buckets "unread:<0|1>" and "last_activity_by:<side>", kept like those of 0008
-- inside the statement that inserts, reads, answers or deletes a vuln, so q[read_eq] and
-- q[last_activity_by_eq] totals read one row. One row per statement, as in 0008.
INSERT INTO vuln_counts (organization_id, bucket, count)
SELECT organization_id, 'unread:' || unread, count(*) FROM vulns GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO vuln_counts (organization_id, bucket, count)
SELECT '*', 'unread:' || unread, count(*) FROM vulns GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO vuln_counts (organization_id, bucket, count)
SELECT organization_id, 'last_activity_by:' || last_activity_by, count(*) FROM vulns GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO vuln_counts (organization_id, bucket, count)
SELECT '*', 'last_activity_by:' || last_activity_by, count(*) FROM vulns GROUP BY 1, 2;
--> statement-breakpoint
CREATE TRIGGER vuln_activity_comment AFTER INSERT ON comments
WHEN NEW.visibility = 'reporter'
BEGIN
  UPDATE vulns SET activity_at = NEW.created_at, activity_by = NEW.author WHERE id = NEW.vuln_id;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_activity_attachment AFTER INSERT ON attachments
BEGIN
  UPDATE vulns SET activity_at = NEW.created_at, activity_by = NEW.uploaded_by WHERE id = NEW.vuln_id;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_activity_insert AFTER INSERT ON vulns
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (NEW.organization_id, 'unread:' || NEW.unread, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'unread:' || NEW.unread, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (NEW.organization_id, 'last_activity_by:' || NEW.last_activity_by, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'last_activity_by:' || NEW.last_activity_by, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_activity_delete AFTER DELETE ON vulns
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (OLD.organization_id, 'unread:' || OLD.unread, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'unread:' || OLD.unread, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (OLD.organization_id, 'last_activity_by:' || OLD.last_activity_by, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'last_activity_by:' || OLD.last_activity_by, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_unread_update AFTER UPDATE OF read_at ON vulns
WHEN OLD.unread IS NOT NEW.unread
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (OLD.organization_id, 'unread:' || OLD.unread, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'unread:' || OLD.unread, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (NEW.organization_id, 'unread:' || NEW.unread, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'unread:' || NEW.unread, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_counts_activity_update AFTER UPDATE OF activity_by, follow_up_token_hash ON vulns
WHEN OLD.last_activity_by IS NOT NEW.last_activity_by
BEGIN
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (OLD.organization_id, 'last_activity_by:' || OLD.last_activity_by, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'last_activity_by:' || OLD.last_activity_by, -1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES (NEW.organization_id, 'last_activity_by:' || NEW.last_activity_by, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
  INSERT INTO vuln_counts (organization_id, bucket, count) VALUES ('*', 'last_activity_by:' || NEW.last_activity_by, 1)
    ON CONFLICT (organization_id, bucket) DO UPDATE SET count = count + excluded.count;
END;
