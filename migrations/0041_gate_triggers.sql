-- The gate's derived rows, kept by triggers so every path (API, page, intake, cascades) keeps them.
-- 1. reporter_key_records: a reporter key's reports to one organization and how they ended, moved in the
--    statement that inserts, re-triages or deletes a signed report. Valid: triaged, resolved, accepted_risk.
-- 2. possible_duplicate_of_id: deleting the earlier report clears the suggestion (as 0019 does for duplicate_of_id).
CREATE TRIGGER reporter_key_records_insert AFTER INSERT ON vulns
WHEN NEW.reporter_key IS NOT NULL
BEGIN
  INSERT INTO reporter_key_records (organization_id, thumbprint, reports, valid, spam, not_applicable, duplicate, first_at, last_at)
  VALUES (NEW.organization_id, NEW.reporter_key, 1, NEW.triage_state IN ('triaged', 'resolved', 'accepted_risk'), NEW.triage_state = 'spam',
    NEW.triage_state = 'not_applicable', NEW.triage_state = 'duplicate', NEW.created_at, NEW.created_at)
  ON CONFLICT (organization_id, thumbprint) DO UPDATE SET reports = reports + 1, valid = valid + excluded.valid,
    spam = spam + excluded.spam, not_applicable = not_applicable + excluded.not_applicable,
    duplicate = duplicate + excluded.duplicate, last_at = max(last_at, excluded.last_at);
END;
--> statement-breakpoint
CREATE TRIGGER reporter_key_records_move AFTER UPDATE OF triage_state ON vulns
WHEN NEW.reporter_key IS NOT NULL AND OLD.triage_state IS NOT NEW.triage_state
BEGIN
  UPDATE reporter_key_records SET
    valid = valid - (OLD.triage_state IN ('triaged', 'resolved', 'accepted_risk')) + (NEW.triage_state IN ('triaged', 'resolved', 'accepted_risk')),
    spam = spam - (OLD.triage_state = 'spam') + (NEW.triage_state = 'spam'),
    not_applicable = not_applicable - (OLD.triage_state = 'not_applicable') + (NEW.triage_state = 'not_applicable'),
    duplicate = duplicate - (OLD.triage_state = 'duplicate') + (NEW.triage_state = 'duplicate')
  WHERE organization_id = NEW.organization_id AND thumbprint = NEW.reporter_key;
END;
--> statement-breakpoint
CREATE TRIGGER reporter_key_records_delete AFTER DELETE ON vulns
WHEN OLD.reporter_key IS NOT NULL
BEGIN
  UPDATE reporter_key_records SET reports = reports - 1, valid = valid - (OLD.triage_state IN ('triaged', 'resolved', 'accepted_risk')),
    spam = spam - (OLD.triage_state = 'spam'), not_applicable = not_applicable - (OLD.triage_state = 'not_applicable'),
    duplicate = duplicate - (OLD.triage_state = 'duplicate')
  WHERE organization_id = OLD.organization_id AND thumbprint = OLD.reporter_key;
END;
--> statement-breakpoint
CREATE TRIGGER vuln_possible_duplicates_orphaned AFTER DELETE ON vulns
BEGIN
  UPDATE vulns SET possible_duplicate_of_id = NULL, possible_duplicate_score = NULL WHERE possible_duplicate_of_id = OLD.id;
END;
