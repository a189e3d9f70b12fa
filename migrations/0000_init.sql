CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text,
	`kind` text NOT NULL,
	`name` text,
	`key_hash` text NOT NULL,
	`key_prefix` text NOT NULL,
	`revoked_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_organization_idx` ON `api_keys` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `assets` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`kind` text NOT NULL,
	`value` text NOT NULL,
	`short_description` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `assets_organization_kind_value_idx` ON `assets` (`organization_id`,`kind`,`value`);--> statement-breakpoint
CREATE INDEX `assets_organization_created_at_idx` ON `assets` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `assets_organization_updated_at_idx` ON `assets` (`organization_id`,`updated_at`);--> statement-breakpoint
CREATE TABLE `briefs` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`policy_id` text,
	`name` text NOT NULL,
	`short_description` text,
	`shortcode` text NOT NULL,
	`published_at` text,
	`in_scope_assets` text NOT NULL,
	`out_of_scope_assets` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`policy_id`) REFERENCES `policies`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `briefs_shortcode_unique` ON `briefs` (`shortcode`);--> statement-breakpoint
CREATE INDEX `briefs_organization_created_at_idx` ON `briefs` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `briefs_organization_updated_at_idx` ON `briefs` (`organization_id`,`updated_at`);--> statement-breakpoint
CREATE INDEX `briefs_policy_idx` ON `briefs` (`policy_id`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`website_url` text,
	`claimed` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_slug_unique` ON `organizations` (`slug`);--> statement-breakpoint
CREATE INDEX `organizations_created_at_idx` ON `organizations` (`created_at`);--> statement-breakpoint
CREATE INDEX `organizations_updated_at_idx` ON `organizations` (`updated_at`);--> statement-breakpoint
CREATE TABLE `policies` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text,
	`short_description` text,
	`point_of_contact` text,
	`cvd_timeline` integer,
	`safe_harbor` text,
	`offers_bounty` integer,
	`offers_swag` integer,
	`hall_of_fame` integer,
	`contact_url` text,
	`securitytxt_url` text,
	`hosted_policy_url` text,
	`public_disclosure` integer,
	`launch_date` text,
	`policy_url_status` text,
	`creation_mode` text,
	`hosting_mode` text,
	`custom_domain` text,
	`published_at` text,
	`shortcode` text NOT NULL,
	`branding` text,
	`in_scope_assets` text NOT NULL,
	`out_of_scope_assets` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `policies_shortcode_unique` ON `policies` (`shortcode`);--> statement-breakpoint
CREATE INDEX `policies_organization_created_at_idx` ON `policies` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `policies_organization_updated_at_idx` ON `policies` (`organization_id`,`updated_at`);--> statement-breakpoint
CREATE TABLE `policy_assets` (
	`policy_id` text NOT NULL,
	`asset_id` text NOT NULL,
	PRIMARY KEY(`policy_id`, `asset_id`),
	FOREIGN KEY (`policy_id`) REFERENCES `policies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`asset_id`) REFERENCES `assets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `policy_assets_asset_idx` ON `policy_assets` (`asset_id`);