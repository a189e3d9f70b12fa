CREATE TABLE `attachments` (
	`id` text PRIMARY KEY NOT NULL,
	`vuln_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`filename` text NOT NULL,
	`content_type` text NOT NULL,
	`byte_size` integer NOT NULL,
	`sha256` text NOT NULL,
	`uploaded_by` text NOT NULL,
	`object_key` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`vuln_id`) REFERENCES `vulns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `attachments_object_key_unique` ON `attachments` (`object_key`);--> statement-breakpoint
CREATE INDEX `attachments_vuln_created_at_idx` ON `attachments` (`vuln_id`,`created_at`,`id`,`byte_size`);--> statement-breakpoint
ALTER TABLE `vulns` ADD `severity` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `cvss_vector` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `cvss_score` real;--> statement-breakpoint
ALTER TABLE `vulns` ADD `cvss_version` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `cwe_ids` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `cvss_rank_desc` integer GENERATED ALWAYS AS (coalesce(cast(round(cvss_score * 10) as integer), -1)) VIRTUAL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `cvss_rank_asc` integer GENERATED ALWAYS AS (coalesce(cast(round(cvss_score * 10) as integer), 101)) VIRTUAL;--> statement-breakpoint
CREATE INDEX `vulns_organization_severity_idx` ON `vulns` (`organization_id`,`severity`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_organization_cvss_desc_idx` ON `vulns` (`organization_id`,`cvss_rank_desc`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_organization_cvss_asc_idx` ON `vulns` (`organization_id`,`cvss_rank_asc`,`id`);