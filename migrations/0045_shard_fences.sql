-- Custom migration (drizzle-kit generate --custom): drizzle-kit cannot express triggers.
-- An organization that moves between tenant databases is fenced in them (tenant_fences): a write of its
-- rows that is not the move's own is dropped, so nothing changes them between the copy and the switch
-- (src/db/tenant-tables.ts writes these triggers; test/shards/move-tables.test.ts holds the database to
-- them). The move deletes its rows from the database it leaves as `departing`: the audit log's retention
-- and the deleted reports' tokens are for deletions, and these rows live on in the other database.
DROP TRIGGER audit_events_kept_400_days;
--> statement-breakpoint
CREATE TRIGGER audit_events_kept_400_days BEFORE DELETE ON audit_events
WHEN OLD.at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-400 days')
  AND NOT EXISTS (SELECT 1 FROM tenant_fences WHERE organization_id = OLD.organization_id AND state = 'departing')
BEGIN
  SELECT RAISE(ABORT, 'audit_events are kept 400 days');
END;
--> statement-breakpoint
DROP TRIGGER vulns_keep_deleted_report_token;
--> statement-breakpoint
CREATE TRIGGER vulns_keep_deleted_report_token AFTER DELETE ON vulns
WHEN OLD.follow_up_token_hash IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM tenant_fences WHERE organization_id = OLD.organization_id AND state = 'departing')
BEGIN
  INSERT OR IGNORE INTO deleted_report_tokens (token_hash, deleted_at)
  VALUES (OLD.follow_up_token_hash, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
END;
--> statement-breakpoint
CREATE TRIGGER "audit_events_fenced_insert" BEFORE INSERT ON "audit_events"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "audit_events_fenced_update" BEFORE UPDATE ON "audit_events"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "audit_events_fenced_delete" BEFORE DELETE ON "audit_events"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "events_fenced_insert" BEFORE INSERT ON "events"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "events_fenced_update" BEFORE UPDATE ON "events"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "events_fenced_delete" BEFORE DELETE ON "events"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "notifications_fenced_insert" BEFORE INSERT ON "notifications"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "notifications_fenced_update" BEFORE UPDATE ON "notifications"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "notifications_fenced_delete" BEFORE DELETE ON "notifications"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "organizations_fenced_insert" BEFORE INSERT ON "organizations"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "organizations_fenced_update" BEFORE UPDATE ON "organizations"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "organizations_fenced_delete" BEFORE DELETE ON "organizations"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "advisories_fenced_insert" BEFORE INSERT ON "advisories"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "advisories_fenced_update" BEFORE UPDATE ON "advisories"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "advisories_fenced_delete" BEFORE DELETE ON "advisories"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "advisory_revisions_fenced_insert" BEFORE INSERT ON "advisory_revisions"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "advisories"."organization_id" FROM "advisories" WHERE "advisories"."id" = NEW."advisory_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "advisory_revisions_fenced_update" BEFORE UPDATE ON "advisory_revisions"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "advisories"."organization_id" FROM "advisories" WHERE "advisories"."id" = OLD."advisory_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "advisory_revisions_fenced_delete" BEFORE DELETE ON "advisory_revisions"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "advisories"."organization_id" FROM "advisories" WHERE "advisories"."id" = OLD."advisory_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "api_keys_fenced_insert" BEFORE INSERT ON "api_keys"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "api_keys_fenced_update" BEFORE UPDATE ON "api_keys"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "api_keys_fenced_delete" BEFORE DELETE ON "api_keys"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "assets_fenced_insert" BEFORE INSERT ON "assets"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "assets_fenced_update" BEFORE UPDATE ON "assets"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "assets_fenced_delete" BEFORE DELETE ON "assets"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "canned_responses_fenced_insert" BEFORE INSERT ON "canned_responses"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "canned_responses_fenced_update" BEFORE UPDATE ON "canned_responses"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "canned_responses_fenced_delete" BEFORE DELETE ON "canned_responses"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "contacts_fenced_insert" BEFORE INSERT ON "contacts"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "contacts_fenced_update" BEFORE UPDATE ON "contacts"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "contacts_fenced_delete" BEFORE DELETE ON "contacts"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "directory_listings_fenced_insert" BEFORE INSERT ON "directory_listings"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "directory_listings_fenced_update" BEFORE UPDATE ON "directory_listings"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "directory_listings_fenced_delete" BEFORE DELETE ON "directory_listings"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "directory_listing_items_fenced_insert" BEFORE INSERT ON "directory_listing_items"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "directory_listings"."organization_id" FROM "directory_listings" WHERE "directory_listings"."id" = NEW."listing_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "directory_listing_items_fenced_update" BEFORE UPDATE ON "directory_listing_items"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "directory_listings"."organization_id" FROM "directory_listings" WHERE "directory_listings"."id" = OLD."listing_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "directory_listing_items_fenced_delete" BEFORE DELETE ON "directory_listing_items"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "directory_listings"."organization_id" FROM "directory_listings" WHERE "directory_listings"."id" = OLD."listing_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "members_fenced_insert" BEFORE INSERT ON "members"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "members_fenced_update" BEFORE UPDATE ON "members"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "members_fenced_delete" BEFORE DELETE ON "members"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "passkeys_fenced_insert" BEFORE INSERT ON "passkeys"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "passkeys_fenced_update" BEFORE UPDATE ON "passkeys"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "passkeys_fenced_delete" BEFORE DELETE ON "passkeys"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "policies_fenced_insert" BEFORE INSERT ON "policies"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "policies_fenced_update" BEFORE UPDATE ON "policies"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "policies_fenced_delete" BEFORE DELETE ON "policies"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "briefs_fenced_insert" BEFORE INSERT ON "briefs"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "briefs_fenced_update" BEFORE UPDATE ON "briefs"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "briefs_fenced_delete" BEFORE DELETE ON "briefs"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "brief_gate_state_fenced_insert" BEFORE INSERT ON "brief_gate_state"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "briefs"."organization_id" FROM "briefs" WHERE "briefs"."id" = NEW."brief_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "brief_gate_state_fenced_update" BEFORE UPDATE ON "brief_gate_state"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "briefs"."organization_id" FROM "briefs" WHERE "briefs"."id" = OLD."brief_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "brief_gate_state_fenced_delete" BEFORE DELETE ON "brief_gate_state"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "briefs"."organization_id" FROM "briefs" WHERE "briefs"."id" = OLD."brief_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "gate_marks_fenced_insert" BEFORE INSERT ON "gate_marks"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "briefs"."organization_id" FROM "briefs" WHERE "briefs"."id" = NEW."brief_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "gate_marks_fenced_update" BEFORE UPDATE ON "gate_marks"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "briefs"."organization_id" FROM "briefs" WHERE "briefs"."id" = OLD."brief_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "gate_marks_fenced_delete" BEFORE DELETE ON "gate_marks"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "briefs"."organization_id" FROM "briefs" WHERE "briefs"."id" = OLD."brief_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "policy_assets_fenced_insert" BEFORE INSERT ON "policy_assets"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "assets"."organization_id" FROM "assets" WHERE "assets"."id" = NEW."asset_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "policy_assets_fenced_update" BEFORE UPDATE ON "policy_assets"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "assets"."organization_id" FROM "assets" WHERE "assets"."id" = OLD."asset_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "policy_assets_fenced_delete" BEFORE DELETE ON "policy_assets"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "assets"."organization_id" FROM "assets" WHERE "assets"."id" = OLD."asset_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "policy_versions_fenced_insert" BEFORE INSERT ON "policy_versions"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "policies"."organization_id" FROM "policies" WHERE "policies"."id" = NEW."policy_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "policy_versions_fenced_update" BEFORE UPDATE ON "policy_versions"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "policies"."organization_id" FROM "policies" WHERE "policies"."id" = OLD."policy_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "policy_versions_fenced_delete" BEFORE DELETE ON "policy_versions"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "policies"."organization_id" FROM "policies" WHERE "policies"."id" = OLD."policy_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "sessions_fenced_insert" BEFORE INSERT ON "sessions"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "sessions_fenced_update" BEFORE UPDATE ON "sessions"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "sessions_fenced_delete" BEFORE DELETE ON "sessions"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "sign_in_links_fenced_insert" BEFORE INSERT ON "sign_in_links"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "members"."organization_id" FROM "members" WHERE "members"."id" = NEW."member_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "sign_in_links_fenced_update" BEFORE UPDATE ON "sign_in_links"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "members"."organization_id" FROM "members" WHERE "members"."id" = OLD."member_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "sign_in_links_fenced_delete" BEFORE DELETE ON "sign_in_links"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "members"."organization_id" FROM "members" WHERE "members"."id" = OLD."member_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vulns_fenced_insert" BEFORE INSERT ON "vulns"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vulns_fenced_update" BEFORE UPDATE ON "vulns"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vulns_fenced_delete" BEFORE DELETE ON "vulns"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "advisory_vulns_fenced_insert" BEFORE INSERT ON "advisory_vulns"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "advisories"."organization_id" FROM "advisories" WHERE "advisories"."id" = NEW."advisory_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "advisory_vulns_fenced_update" BEFORE UPDATE ON "advisory_vulns"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "advisories"."organization_id" FROM "advisories" WHERE "advisories"."id" = OLD."advisory_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "advisory_vulns_fenced_delete" BEFORE DELETE ON "advisory_vulns"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "advisories"."organization_id" FROM "advisories" WHERE "advisories"."id" = OLD."advisory_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "attachments_fenced_insert" BEFORE INSERT ON "attachments"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "attachments_fenced_update" BEFORE UPDATE ON "attachments"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "attachments_fenced_delete" BEFORE DELETE ON "attachments"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "comments_fenced_insert" BEFORE INSERT ON "comments"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "comments_fenced_update" BEFORE UPDATE ON "comments"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "comments_fenced_delete" BEFORE DELETE ON "comments"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "deadline_alerts_fenced_insert" BEFORE INSERT ON "deadline_alerts"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "vulns"."organization_id" FROM "vulns" WHERE "vulns"."id" = NEW."vuln_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "deadline_alerts_fenced_update" BEFORE UPDATE ON "deadline_alerts"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "vulns"."organization_id" FROM "vulns" WHERE "vulns"."id" = OLD."vuln_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "deadline_alerts_fenced_delete" BEFORE DELETE ON "deadline_alerts"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "vulns"."organization_id" FROM "vulns" WHERE "vulns"."id" = OLD."vuln_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "idempotency_keys_fenced_insert" BEFORE INSERT ON "idempotency_keys"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = coalesce((SELECT "organization_id" FROM "api_keys" WHERE "id" = NEW."scope"), (SELECT "organization_id" FROM "sessions" WHERE "id" = NEW."scope"), CASE WHEN NEW."scope" LIKE 'report:%' THEN (SELECT "organization_id" FROM "vulns" WHERE "id" = substr(NEW."scope", 8)) END))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "idempotency_keys_fenced_update" BEFORE UPDATE ON "idempotency_keys"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = coalesce((SELECT "organization_id" FROM "api_keys" WHERE "id" = OLD."scope"), (SELECT "organization_id" FROM "sessions" WHERE "id" = OLD."scope"), CASE WHEN OLD."scope" LIKE 'report:%' THEN (SELECT "organization_id" FROM "vulns" WHERE "id" = substr(OLD."scope", 8)) END))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "idempotency_keys_fenced_delete" BEFORE DELETE ON "idempotency_keys"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = coalesce((SELECT "organization_id" FROM "api_keys" WHERE "id" = OLD."scope"), (SELECT "organization_id" FROM "sessions" WHERE "id" = OLD."scope"), CASE WHEN OLD."scope" LIKE 'report:%' THEN (SELECT "organization_id" FROM "vulns" WHERE "id" = substr(OLD."scope", 8)) END))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "inbound_emails_fenced_insert" BEFORE INSERT ON "inbound_emails"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "vulns"."organization_id" FROM "vulns" WHERE "vulns"."id" = NEW."vuln_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "inbound_emails_fenced_update" BEFORE UPDATE ON "inbound_emails"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "vulns"."organization_id" FROM "vulns" WHERE "vulns"."id" = OLD."vuln_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "inbound_emails_fenced_delete" BEFORE DELETE ON "inbound_emails"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "vulns"."organization_id" FROM "vulns" WHERE "vulns"."id" = OLD."vuln_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "regulatory_reports_fenced_insert" BEFORE INSERT ON "regulatory_reports"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "regulatory_reports_fenced_update" BEFORE UPDATE ON "regulatory_reports"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "regulatory_reports_fenced_delete" BEFORE DELETE ON "regulatory_reports"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_assets_fenced_insert" BEFORE INSERT ON "vuln_assets"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "assets"."organization_id" FROM "assets" WHERE "assets"."id" = NEW."asset_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_assets_fenced_update" BEFORE UPDATE ON "vuln_assets"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "assets"."organization_id" FROM "assets" WHERE "assets"."id" = OLD."asset_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_assets_fenced_delete" BEFORE DELETE ON "vuln_assets"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "assets"."organization_id" FROM "assets" WHERE "assets"."id" = OLD."asset_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_fingerprints_fenced_insert" BEFORE INSERT ON "vuln_fingerprints"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_fingerprints_fenced_update" BEFORE UPDATE ON "vuln_fingerprints"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_fingerprints_fenced_delete" BEFORE DELETE ON "vuln_fingerprints"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_lsh_bands_fenced_insert" BEFORE INSERT ON "vuln_lsh_bands"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_lsh_bands_fenced_update" BEFORE UPDATE ON "vuln_lsh_bands"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_lsh_bands_fenced_delete" BEFORE DELETE ON "vuln_lsh_bands"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_records_fenced_insert" BEFORE INSERT ON "vuln_records"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "vulns"."organization_id" FROM "vulns" WHERE "vulns"."id" = NEW."vuln_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_records_fenced_update" BEFORE UPDATE ON "vuln_records"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "vulns"."organization_id" FROM "vulns" WHERE "vulns"."id" = OLD."vuln_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_records_fenced_delete" BEFORE DELETE ON "vuln_records"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "vulns"."organization_id" FROM "vulns" WHERE "vulns"."id" = OLD."vuln_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_signatures_fenced_insert" BEFORE INSERT ON "vuln_signatures"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_signatures_fenced_update" BEFORE UPDATE ON "vuln_signatures"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_signatures_fenced_delete" BEFORE DELETE ON "vuln_signatures"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_similarities_fenced_insert" BEFORE INSERT ON "vuln_similarities"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_similarities_fenced_update" BEFORE UPDATE ON "vuln_similarities"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_similarities_fenced_delete" BEFORE DELETE ON "vuln_similarities"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "webauthn_challenges_fenced_insert" BEFORE INSERT ON "webauthn_challenges"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "members"."organization_id" FROM "members" WHERE "members"."id" = NEW."member_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "webauthn_challenges_fenced_update" BEFORE UPDATE ON "webauthn_challenges"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "members"."organization_id" FROM "members" WHERE "members"."id" = OLD."member_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "webauthn_challenges_fenced_delete" BEFORE DELETE ON "webauthn_challenges"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "members"."organization_id" FROM "members" WHERE "members"."id" = OLD."member_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "webhooks_fenced_insert" BEFORE INSERT ON "webhooks"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "webhooks_fenced_update" BEFORE UPDATE ON "webhooks"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "webhooks_fenced_delete" BEFORE DELETE ON "webhooks"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "webhook_deliveries_fenced_insert" BEFORE INSERT ON "webhook_deliveries"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "webhook_deliveries_fenced_update" BEFORE UPDATE ON "webhook_deliveries"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "webhook_deliveries_fenced_delete" BEFORE DELETE ON "webhook_deliveries"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "webhook_attempts_fenced_insert" BEFORE INSERT ON "webhook_attempts"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "webhook_deliveries"."organization_id" FROM "webhook_deliveries" WHERE "webhook_deliveries"."id" = NEW."delivery_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "webhook_attempts_fenced_update" BEFORE UPDATE ON "webhook_attempts"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "webhook_deliveries"."organization_id" FROM "webhook_deliveries" WHERE "webhook_deliveries"."id" = OLD."delivery_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "webhook_attempts_fenced_delete" BEFORE DELETE ON "webhook_attempts"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "webhook_deliveries"."organization_id" FROM "webhook_deliveries" WHERE "webhook_deliveries"."id" = OLD."delivery_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "webhook_subscriptions_fenced_insert" BEFORE INSERT ON "webhook_subscriptions"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "webhooks"."organization_id" FROM "webhooks" WHERE "webhooks"."id" = NEW."webhook_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "webhook_subscriptions_fenced_update" BEFORE UPDATE ON "webhook_subscriptions"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "webhooks"."organization_id" FROM "webhooks" WHERE "webhooks"."id" = OLD."webhook_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "webhook_subscriptions_fenced_delete" BEFORE DELETE ON "webhook_subscriptions"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = (SELECT "webhooks"."organization_id" FROM "webhooks" WHERE "webhooks"."id" = OLD."webhook_id"))
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "reporter_key_records_fenced_insert" BEFORE INSERT ON "reporter_key_records"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "reporter_key_records_fenced_update" BEFORE UPDATE ON "reporter_key_records"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "reporter_key_records_fenced_delete" BEFORE DELETE ON "reporter_key_records"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_counts_fenced_insert" BEFORE INSERT ON "vuln_counts"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = NEW."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_counts_fenced_update" BEFORE UPDATE ON "vuln_counts"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TRIGGER "vuln_counts_fenced_delete" BEFORE DELETE ON "vuln_counts"
WHEN EXISTS (SELECT 1 FROM "tenant_fences") AND EXISTS (SELECT 1 FROM "tenant_fences" WHERE "state" = 'closed' AND "organization_id" = OLD."organization_id")
BEGIN
  SELECT RAISE(IGNORE);
END;
