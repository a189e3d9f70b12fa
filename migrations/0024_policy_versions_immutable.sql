-- Custom migration (drizzle-kit generate --custom): drizzle-kit cannot express triggers.
-- A policy version is what a reporter was promised: the database itself refuses to change it. It goes
-- only with its policy.
CREATE TRIGGER policy_versions_no_update BEFORE UPDATE ON policy_versions
BEGIN
  SELECT RAISE(ABORT, 'policy_versions are immutable');
END;
