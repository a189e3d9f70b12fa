CREATE TABLE `vuln_counts` (
	`organization_id` text NOT NULL,
	`bucket` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`organization_id`, `bucket`)
);
--> statement-breakpoint
DROP INDEX `vulns_organization_created_at_idx`;--> statement-breakpoint
DROP INDEX `vulns_organization_updated_at_idx`;--> statement-breakpoint
DROP INDEX `vulns_organization_processing_idx`;--> statement-breakpoint
DROP INDEX `vulns_organization_inbox_idx`;--> statement-breakpoint
DROP INDEX `vulns_brief_idx`;--> statement-breakpoint
CREATE INDEX `vulns_created_at_idx` ON `vulns` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_updated_at_idx` ON `vulns` (`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_organization_created_at_idx` ON `vulns` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_organization_updated_at_idx` ON `vulns` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_organization_processing_idx` ON `vulns` (`organization_id`,`processing_state`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_organization_inbox_idx` ON `vulns` (`organization_id`,`inbox_state`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_brief_idx` ON `vulns` (`brief_id`,`created_at`,`id`);