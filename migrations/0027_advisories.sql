CREATE TABLE `advisories` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`state` text NOT NULL,
	`revision` integer DEFAULT 0 NOT NULL,
	`title` text NOT NULL,
	`summary` text,
	`description` text,
	`affected` text NOT NULL,
	`remediation` text,
	`references` text NOT NULL,
	`cve_id` text,
	`cvss_vector` text,
	`cwe_ids` text NOT NULL,
	`credits` text NOT NULL,
	`published_at` text,
	`withdrawn_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `advisories_organization_created_at_idx` ON `advisories` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `advisories_organization_updated_at_idx` ON `advisories` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `advisories_organization_cve_idx` ON `advisories` (`organization_id`,`cve_id`);--> statement-breakpoint
CREATE TABLE `advisory_revisions` (
	`id` text PRIMARY KEY NOT NULL,
	`advisory_id` text NOT NULL,
	`number` integer NOT NULL,
	`note` text NOT NULL,
	`document` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`advisory_id`) REFERENCES `advisories`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `advisory_revisions_advisory_number_idx` ON `advisory_revisions` (`advisory_id`,`number`);--> statement-breakpoint
CREATE TABLE `advisory_vulns` (
	`advisory_id` text NOT NULL,
	`vuln_id` text NOT NULL,
	PRIMARY KEY(`advisory_id`, `vuln_id`),
	FOREIGN KEY (`advisory_id`) REFERENCES `advisories`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`vuln_id`) REFERENCES `vulns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `advisory_vulns_vuln_idx` ON `advisory_vulns` (`vuln_id`);--> statement-breakpoint
DROP INDEX `vulns_organization_next_due_asc_idx`;--> statement-breakpoint
DROP INDEX `vulns_organization_next_due_desc_idx`;--> statement-breakpoint
ALTER TABLE `vulns` ADD `credit_name` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `credit_consent` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `disclosed_at` text;--> statement-breakpoint
ALTER TABLE `vulns` DROP COLUMN `next_due_ms`;--> statement-breakpoint
ALTER TABLE `vulns` DROP COLUMN `next_due_asc`;--> statement-breakpoint
ALTER TABLE `vulns` DROP COLUMN `next_due_desc`;