CREATE TABLE `directories` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`description` text,
	`min_maturity_rating` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `directories_slug_unique` ON `directories` (`slug`);--> statement-breakpoint
CREATE INDEX `directories_created_at_idx` ON `directories` (`created_at`);--> statement-breakpoint
CREATE INDEX `directories_updated_at_idx` ON `directories` (`updated_at`);--> statement-breakpoint
CREATE TABLE `directory_listing_items` (
	`id` text PRIMARY KEY NOT NULL,
	`listing_id` text NOT NULL,
	`listable_type` text NOT NULL,
	`listable_id` text NOT NULL,
	`position` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`listing_id`) REFERENCES `directory_listings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `directory_listing_items_listable_idx` ON `directory_listing_items` (`listing_id`,`listable_type`,`listable_id`);--> statement-breakpoint
CREATE INDEX `directory_listing_items_position_idx` ON `directory_listing_items` (`listing_id`,`position`);--> statement-breakpoint
CREATE INDEX `directory_listing_items_listable_lookup_idx` ON `directory_listing_items` (`listable_type`,`listable_id`);--> statement-breakpoint
CREATE TABLE `directory_listings` (
	`id` text PRIMARY KEY NOT NULL,
	`directory_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`visible` integer DEFAULT true NOT NULL,
	`customized` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`directory_id`) REFERENCES `directories`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `directory_listings_directory_organization_idx` ON `directory_listings` (`directory_id`,`organization_id`);--> statement-breakpoint
CREATE INDEX `directory_listings_organization_created_at_idx` ON `directory_listings` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `directory_listings_organization_updated_at_idx` ON `directory_listings` (`organization_id`,`updated_at`);