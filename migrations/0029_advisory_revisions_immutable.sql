-- Custom migration (drizzle-kit generate --custom): drizzle-kit cannot express triggers.
-- A published revision of an advisory is what the world was told: the database itself refuses to
-- change it. It goes only with its advisory.
CREATE TRIGGER advisory_revisions_no_update BEFORE UPDATE ON advisory_revisions
BEGIN
  SELECT RAISE(ABORT, 'advisory_revisions are immutable');
END;
