-- Custom migration (drizzle-kit generate --custom): drizzle-kit cannot express triggers.
-- A deleted report keeps its follow-up token's hash here, on every path that deletes a vuln (the API,
-- an organization's cascade), so its reporter learns the report is gone instead of a 401.
CREATE TRIGGER vulns_keep_deleted_report_token AFTER DELETE ON vulns
WHEN OLD.follow_up_token_hash IS NOT NULL
BEGIN
  INSERT OR IGNORE INTO deleted_report_tokens (token_hash, deleted_at)
  VALUES (OLD.follow_up_token_hash, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
