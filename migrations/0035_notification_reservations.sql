ALTER TABLE `notifications` ADD `reserved_at` text;--> statement-breakpoint
CREATE INDEX `notifications_organization_reserved_idx` ON `notifications` (`organization_id`,`reserved_at`);--> statement-breakpoint
CREATE INDEX `notifications_to_reserved_idx` ON `notifications` (`to`,`reserved_at`);