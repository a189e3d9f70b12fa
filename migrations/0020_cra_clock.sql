CREATE TABLE `regulatory_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`vuln_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`kind` text NOT NULL,
	`submitted_at` text NOT NULL,
	`reference` text,
	`body` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`vuln_id`) REFERENCES `vulns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `regulatory_reports_vuln_created_at_idx` ON `regulatory_reports` (`vuln_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `vulns_organization_next_due_asc_idx`;--> statement-breakpoint
DROP INDEX `vulns_organization_next_due_desc_idx`;--> statement-breakpoint
ALTER TABLE `vulns` ADD `actively_exploited` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `exploitation_known_at` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `cra_early_warning_due_ms` integer;--> statement-breakpoint
ALTER TABLE `vulns` ADD `cra_notification_due_ms` integer;--> statement-breakpoint
ALTER TABLE `vulns` ADD `cra_final_report_due_ms` integer;--> statement-breakpoint
ALTER TABLE `vulns` ADD `cra_early_warning_met_at` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `cra_notification_met_at` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `cra_final_report_met_at` text;--> statement-breakpoint
ALTER TABLE `vulns` DROP COLUMN `next_due_ms`;--> statement-breakpoint
ALTER TABLE `vulns` DROP COLUMN `next_due_asc`;--> statement-breakpoint
ALTER TABLE `vulns` DROP COLUMN `next_due_desc`;