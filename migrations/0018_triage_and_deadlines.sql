CREATE TABLE `deadline_alerts` (
	`vuln_id` text NOT NULL,
	`deadline` text NOT NULL,
	`alert` text NOT NULL,
	`due_ms` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`vuln_id`, `deadline`, `alert`),
	FOREIGN KEY (`vuln_id`) REFERENCES `vulns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `policies` ADD `response_targets` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `triage_state` text DEFAULT 'new' NOT NULL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `duplicate_of_id` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `info_requested_from` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `info_requested_at` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `acknowledged_at` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `triaged_at` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `closed_at` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `closed_by` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `targets` text DEFAULT '{"acknowledge_hours":72,"triage_hours":240,"resolve_days":{"critical":15,"high":30,"medium":60,"low":90,"none":90},"disclosure_days":null}' NOT NULL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `acknowledge_due_ms` integer;--> statement-breakpoint
ALTER TABLE `vulns` ADD `triage_due_ms` integer;--> statement-breakpoint
ALTER TABLE `vulns` ADD `resolve_due_ms` integer;--> statement-breakpoint
ALTER TABLE `vulns` ADD `disclosure_due_ms` integer;--> statement-breakpoint
ALTER TABLE `vulns` ADD `paused_ms` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `next_alert_ms` integer;--> statement-breakpoint
ALTER TABLE `vulns` ADD `overdue` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `next_due_ms` integer GENERATED ALWAYS AS ((CASE WHEN triage_state = 'needs_more_info' THEN NULL ELSE nullif(min(coalesce(CASE WHEN acknowledged_at IS NOT NULL THEN NULL ELSE acknowledge_due_ms END, 253402300799999), coalesce(CASE WHEN triaged_at IS NOT NULL OR closed_at IS NOT NULL THEN NULL ELSE triage_due_ms END, 253402300799999), coalesce(CASE WHEN closed_at IS NOT NULL THEN NULL ELSE resolve_due_ms END, 253402300799999), coalesce(CASE WHEN 0 THEN NULL ELSE disclosure_due_ms END, 253402300799999)), 253402300799999) END)) VIRTUAL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `next_due_asc` integer GENERATED ALWAYS AS (coalesce((CASE WHEN triage_state = 'needs_more_info' THEN NULL ELSE nullif(min(coalesce(CASE WHEN acknowledged_at IS NOT NULL THEN NULL ELSE acknowledge_due_ms END, 253402300799999), coalesce(CASE WHEN triaged_at IS NOT NULL OR closed_at IS NOT NULL THEN NULL ELSE triage_due_ms END, 253402300799999), coalesce(CASE WHEN closed_at IS NOT NULL THEN NULL ELSE resolve_due_ms END, 253402300799999), coalesce(CASE WHEN 0 THEN NULL ELSE disclosure_due_ms END, 253402300799999)), 253402300799999) END), 253402300799999)) VIRTUAL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `next_due_desc` integer GENERATED ALWAYS AS (coalesce((CASE WHEN triage_state = 'needs_more_info' THEN NULL ELSE nullif(min(coalesce(CASE WHEN acknowledged_at IS NOT NULL THEN NULL ELSE acknowledge_due_ms END, 253402300799999), coalesce(CASE WHEN triaged_at IS NOT NULL OR closed_at IS NOT NULL THEN NULL ELSE triage_due_ms END, 253402300799999), coalesce(CASE WHEN closed_at IS NOT NULL THEN NULL ELSE resolve_due_ms END, 253402300799999), coalesce(CASE WHEN 0 THEN NULL ELSE disclosure_due_ms END, 253402300799999)), 253402300799999) END), -1)) VIRTUAL;--> statement-breakpoint
CREATE INDEX `vulns_organization_triage_idx` ON `vulns` (`organization_id`,`triage_state`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_duplicate_of_idx` ON `vulns` (`duplicate_of_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_info_requested_idx` ON `vulns` (`triage_state`,`info_requested_at`);--> statement-breakpoint
CREATE INDEX `vulns_organization_next_due_asc_idx` ON `vulns` (`organization_id`,`next_due_asc`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_next_alert_idx` ON `vulns` (`next_alert_ms`);--> statement-breakpoint
CREATE INDEX `vulns_organization_overdue_idx` ON `vulns` (`organization_id`,`overdue`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_organization_next_due_desc_idx` ON `vulns` (`organization_id`,`next_due_desc`,`id`);