CREATE TABLE `shard_moves` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`from_shard` text NOT NULL,
	`to_shard` text NOT NULL,
	`step` text NOT NULL,
	`table_name` text,
	`cursor` integer,
	`counts` text,
	`note` text,
	`started_by` text,
	`started_at` text NOT NULL,
	`fenced_at` text,
	`switched_at` text,
	`finished_at` text,
	`advancing_until` text,
	`advanced_by` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `shard_moves_unfinished_idx` ON `shard_moves` (`organization_id`) WHERE step NOT IN ('done', 'rolled_back');--> statement-breakpoint
CREATE INDEX `shard_moves_organization_idx` ON `shard_moves` (`organization_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `shard_moves_step_idx` ON `shard_moves` (`step`);--> statement-breakpoint
CREATE TABLE `tenant_fences` (
	`organization_id` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`since` text NOT NULL
);
