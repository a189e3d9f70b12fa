ALTER TABLE `vulns` ADD `activity_at` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `activity_by` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `last_activity_at` text GENERATED ALWAYS AS (coalesce(activity_at, created_at)) VIRTUAL NOT NULL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `last_activity_by` text GENERATED ALWAYS AS (coalesce(activity_by, CASE WHEN follow_up_token_hash IS NULL THEN 'organization' ELSE 'reporter' END)) VIRTUAL NOT NULL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `unread` integer GENERATED ALWAYS AS (read_at IS NULL) VIRTUAL NOT NULL;--> statement-breakpoint
CREATE INDEX `vulns_organization_unread_idx` ON `vulns` (`organization_id`,`unread`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_organization_activity_idx` ON `vulns` (`organization_id`,`last_activity_at`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_organization_activity_by_idx` ON `vulns` (`organization_id`,`last_activity_by`,`last_activity_at`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_organization_activity_by_created_idx` ON `vulns` (`organization_id`,`last_activity_by`,`created_at`,`id`);