CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`vuln_id` text,
	`type` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` text NOT NULL,
	`processed_at` text,
	`last_sent_at` text,
	`send_count` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `events_unprocessed_idx` ON `events` (`processed_at`,`created_at`);--> statement-breakpoint
CREATE INDEX `events_vuln_idx` ON `events` (`vuln_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `events_organization_idx` ON `events` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`state` text NOT NULL,
	`token` text NOT NULL,
	`response_status` integer,
	`response_headers` text,
	`response_body` text,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	PRIMARY KEY(`scope`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_expires_at_idx` ON `idempotency_keys` (`expires_at`);--> statement-breakpoint
CREATE TABLE `vuln_assets` (
	`vuln_id` text NOT NULL,
	`asset_id` text NOT NULL,
	PRIMARY KEY(`vuln_id`, `asset_id`),
	FOREIGN KEY (`vuln_id`) REFERENCES `vulns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`asset_id`) REFERENCES `assets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `vuln_assets_asset_idx` ON `vuln_assets` (`asset_id`);--> statement-breakpoint
CREATE TABLE `vuln_records` (
	`vuln_id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`contact_email` text,
	`domains` text NOT NULL,
	`received_at` text NOT NULL,
	`sha256` text NOT NULL,
	`stored_at` text NOT NULL,
	FOREIGN KEY (`vuln_id`) REFERENCES `vulns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `vulns` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`brief_id` text,
	`shortcode` text NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`contact_email` text,
	`tags` text NOT NULL,
	`inbox_state` text NOT NULL,
	`processing_state` text NOT NULL,
	`read_at` text,
	`submission` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`brief_id`) REFERENCES `briefs`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vulns_shortcode_unique` ON `vulns` (`shortcode`);--> statement-breakpoint
CREATE INDEX `vulns_organization_created_at_idx` ON `vulns` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `vulns_organization_updated_at_idx` ON `vulns` (`organization_id`,`updated_at`);--> statement-breakpoint
CREATE INDEX `vulns_organization_processing_idx` ON `vulns` (`organization_id`,`processing_state`,`created_at`);--> statement-breakpoint
CREATE INDEX `vulns_organization_inbox_idx` ON `vulns` (`organization_id`,`inbox_state`,`created_at`);--> statement-breakpoint
CREATE INDEX `vulns_brief_idx` ON `vulns` (`brief_id`,`created_at`);