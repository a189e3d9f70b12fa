CREATE TABLE `catalog_names` (
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`organization_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`kind`, `name`)
);
--> statement-breakpoint
CREATE INDEX `catalog_names_organization_idx` ON `catalog_names` (`organization_id`);--> statement-breakpoint
CREATE TABLE `shard_rooms` (
	`shard` text PRIMARY KEY NOT NULL,
	`size_bytes` integer NOT NULL,
	`measured_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `tenants` (
	`organization_id` text PRIMARY KEY NOT NULL,
	`shard` text NOT NULL,
	`moving_to` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tenants_shard_idx` ON `tenants` (`shard`);