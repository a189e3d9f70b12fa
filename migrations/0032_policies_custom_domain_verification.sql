DROP INDEX `policies_custom_domain_idx`;--> statement-breakpoint
ALTER TABLE `policies` ADD `custom_domain_token` text;--> statement-breakpoint
ALTER TABLE `policies` ADD `custom_domain_claimed_at` text;--> statement-breakpoint
ALTER TABLE `policies` ADD `custom_domain_checked_at` text;--> statement-breakpoint
ALTER TABLE `policies` ADD `custom_domain_failure` text;--> statement-breakpoint
ALTER TABLE `policies` ADD `custom_domain_verified_at` text;--> statement-breakpoint
CREATE UNIQUE INDEX `policies_custom_domain_unique_idx` ON `policies` (lower("custom_domain"));--> statement-breakpoint
CREATE INDEX `policies_custom_domain_pending_idx` ON `policies` (`custom_domain_checked_at`) WHERE "policies"."custom_domain" IS NOT NULL AND "policies"."custom_domain_verified_at" IS NULL;