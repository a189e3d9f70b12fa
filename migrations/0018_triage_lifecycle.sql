ALTER TABLE `vulns` ADD `triage_state` text DEFAULT 'new' NOT NULL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `duplicate_of_id` text REFERENCES vulns(id) ON DELETE set null;--> statement-breakpoint
ALTER TABLE `vulns` ADD `info_requested_from` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `info_requested_at` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `acknowledged_at` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `triaged_at` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `closed_at` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `closed_by` text;--> statement-breakpoint
CREATE INDEX `vulns_organization_triage_idx` ON `vulns` (`organization_id`,`triage_state`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_duplicate_of_idx` ON `vulns` (`duplicate_of_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_info_requested_idx` ON `vulns` (`triage_state`,`info_requested_at`);--> statement-breakpoint
-- Added by hand: the reports closed before triage states existed count as resolved, closed when last changed.
UPDATE `vulns` SET `triage_state` = 'resolved', `closed_at` = `updated_at`, `closed_by` = 'organization' WHERE `processing_state` = 'closed';
