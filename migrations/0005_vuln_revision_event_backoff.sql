ALTER TABLE `events` ADD `next_send_at` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `revision` integer DEFAULT 0 NOT NULL;