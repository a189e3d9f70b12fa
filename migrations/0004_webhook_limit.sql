-- Custom migration (drizzle-kit generate --custom): drizzle-kit cannot express triggers.
-- At most 20 webhooks per organization (API.md section 7), enforced inside the insert itself, so two
-- concurrent creates cannot both take the twentieth place.
CREATE TRIGGER webhooks_per_organization_limit BEFORE INSERT ON webhooks
WHEN (SELECT count(*) FROM webhooks WHERE organization_id = NEW.organization_id) >= 20
BEGIN
  SELECT RAISE(ABORT, 'webhook limit reached');
END;
