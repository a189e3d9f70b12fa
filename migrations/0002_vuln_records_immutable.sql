-- Custom migration (drizzle-kit generate --custom): drizzle-kit cannot express triggers.
-- The intake record is immutable: the database itself refuses to change it. It goes only with its vuln.
CREATE TRIGGER vuln_records_no_update BEFORE UPDATE ON vuln_records
BEGIN
  SELECT RAISE(ABORT, 'vuln_records are immutable');
END;
