ALTER TABLE `vuln_records` ADD `policy_version_number` integer;--> statement-breakpoint
ALTER TABLE `vuln_records` ADD `policy_version_sha256` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `policy_version_id` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `policy_version_number` integer;--> statement-breakpoint
ALTER TABLE `vulns` ADD `policy_version_sha256` text;