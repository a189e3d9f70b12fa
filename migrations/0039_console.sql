CREATE TABLE `canned_responses` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`body` text NOT NULL,
	`visibility` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `canned_responses_organization_created_at_idx` ON `canned_responses` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `canned_responses_organization_updated_at_idx` ON `canned_responses` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `canned_responses_organization_name_idx` ON `canned_responses` (`organization_id`,`name`);--> statement-breakpoint
ALTER TABLE `policies` ADD `body` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `assignee_id` text;--> statement-breakpoint
CREATE INDEX `vulns_organization_assignee_idx` ON `vulns` (`organization_id`,`assignee_id`,`created_at`,`id`);