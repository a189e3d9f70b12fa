CREATE TABLE `contacts` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`confirmed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `contacts_organization_created_at_idx` ON `contacts` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_organization_updated_at_idx` ON `contacts` (`organization_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_organization_email_idx` ON `contacts` (`organization_id`,`email`);--> statement-breakpoint
CREATE TABLE `inbound_emails` (
	`message_id` text PRIMARY KEY NOT NULL,
	`vuln_id` text NOT NULL,
	`comment_id` text NOT NULL,
	`received_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`vuln_id` text,
	`contact_id` text,
	`event_id` text,
	`kind` text NOT NULL,
	`recipient` text NOT NULL,
	`to` text NOT NULL,
	`subject` text NOT NULL,
	`params` text NOT NULL,
	`sealed_link` text,
	`status` text NOT NULL,
	`attempt_count` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`next_attempt_at` text,
	`lease_until` text,
	`sent_at` text,
	`message_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notifications_organization_created_at_idx` ON `notifications` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `notifications_organization_status_idx` ON `notifications` (`organization_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `notifications_status_next_idx` ON `notifications` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `notifications_organization_sent_idx` ON `notifications` (`organization_id`,`sent_at`);--> statement-breakpoint
CREATE INDEX `notifications_to_sent_idx` ON `notifications` (`to`,`sent_at`);--> statement-breakpoint
CREATE INDEX `notifications_vuln_idx` ON `notifications` (`vuln_id`,`kind`);--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_event_to_idx` ON `notifications` (`event_id`,`to`,`kind`);--> statement-breakpoint
ALTER TABLE `vulns` ADD `notify_reporter` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `reporter_unsubscribed_at` text;