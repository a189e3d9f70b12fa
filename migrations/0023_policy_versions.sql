CREATE TABLE `policy_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`policy_id` text NOT NULL,
	`number` integer NOT NULL,
	`terms` text NOT NULL,
	`sha256` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`policy_id`) REFERENCES `policies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `policy_versions_policy_number_idx` ON `policy_versions` (`policy_id`,`number`);--> statement-breakpoint
CREATE INDEX `policy_versions_policy_created_at_idx` ON `policy_versions` (`policy_id`,`created_at`,`id`);