CREATE TABLE `comments` (
	`id` text PRIMARY KEY NOT NULL,
	`vuln_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`author` text NOT NULL,
	`visibility` text NOT NULL,
	`body` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`vuln_id`) REFERENCES `vulns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `comments_vuln_created_at_idx` ON `comments` (`vuln_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `comments_vuln_visibility_idx` ON `comments` (`vuln_id`,`visibility`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `vulns` ADD `follow_up_token_hash` text;--> statement-breakpoint
CREATE UNIQUE INDEX `vulns_follow_up_token_hash_unique` ON `vulns` (`follow_up_token_hash`);