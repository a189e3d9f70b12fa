CREATE TABLE `deadline_alerts` (
	`vuln_id` text NOT NULL,
	`deadline` text NOT NULL,
	`alert` text NOT NULL,
	`due_ms` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`vuln_id`, `deadline`, `alert`),
	FOREIGN KEY (`vuln_id`) REFERENCES `vulns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `vulns` ADD `next_alert_ms` integer;--> statement-breakpoint
CREATE INDEX `vulns_next_alert_idx` ON `vulns` (`next_alert_ms`);--> statement-breakpoint
-- Added by hand: the cron looks once at every open report already in, and from then on as its deadlines say.
UPDATE `vulns` SET `next_alert_ms` = 0 WHERE `processing_state` = 'open';
