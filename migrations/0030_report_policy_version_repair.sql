-- Custom migration (drizzle-kit generate --custom): a data repair.
-- Until this migration a new report kept the newest version of whichever policy on the platform had
-- changed last: the subquery that chose it compared policy_versions.policy_id with itself. Each report
-- now gets the version of its own brief's policy that was in force when it was sent (the newest created
-- at or before the report), or none when that policy had none or the brief names no policy.
UPDATE vulns SET
  policy_version_id = (SELECT pv.id FROM briefs b JOIN policy_versions pv ON pv.policy_id = b.policy_id
    WHERE b.id = vulns.brief_id AND pv.created_at <= vulns.created_at ORDER BY pv.number DESC LIMIT 1),
  policy_version_number = (SELECT pv.number FROM briefs b JOIN policy_versions pv ON pv.policy_id = b.policy_id
    WHERE b.id = vulns.brief_id AND pv.created_at <= vulns.created_at ORDER BY pv.number DESC LIMIT 1),
  policy_version_sha256 = (SELECT pv.sha256 FROM briefs b JOIN policy_versions pv ON pv.policy_id = b.policy_id
    WHERE b.id = vulns.brief_id AND pv.created_at <= vulns.created_at ORDER BY pv.number DESC LIMIT 1)
WHERE policy_version_id IS NOT (SELECT pv.id FROM briefs b JOIN policy_versions pv ON pv.policy_id = b.policy_id
    WHERE b.id = vulns.brief_id AND pv.created_at <= vulns.created_at ORDER BY pv.number DESC LIMIT 1);
--> statement-breakpoint
-- The as-received record copied the same wrong version. It is immutable (migration 0002) because it is
-- the submission as the platform received it; the version it names is the one fact that was recorded
-- wrongly, so the trigger steps aside for this one repair and only those two columns change.
DROP TRIGGER vuln_records_no_update;
--> statement-breakpoint
UPDATE vuln_records SET
  policy_version_number = (SELECT v.policy_version_number FROM vulns v WHERE v.id = vuln_records.vuln_id),
  policy_version_sha256 = (SELECT v.policy_version_sha256 FROM vulns v WHERE v.id = vuln_records.vuln_id)
WHERE policy_version_number IS NOT (SELECT v.policy_version_number FROM vulns v WHERE v.id = vuln_records.vuln_id)
   OR policy_version_sha256 IS NOT (SELECT v.policy_version_sha256 FROM vulns v WHERE v.id = vuln_records.vuln_id);
--> statement-breakpoint
CREATE TRIGGER vuln_records_no_update BEFORE UPDATE ON vuln_records
BEGIN
  SELECT RAISE(ABORT, 'vuln_records are immutable');
END;
