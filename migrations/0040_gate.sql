CREATE TABLE `brief_gate_state` (
	`brief_id` text PRIMARY KEY NOT NULL,
	`pow_on_until_ms` integer,
	`queue_head_at` text,
	FOREIGN KEY (`brief_id`) REFERENCES `briefs`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `brief_gate_state_queue_idx` ON `brief_gate_state` (`queue_head_at`);--> statement-breakpoint
CREATE TABLE `gate_marks` (
	`id` text PRIMARY KEY NOT NULL,
	`brief_id` text NOT NULL,
	`address_tag` text NOT NULL,
	`at_ms` integer NOT NULL,
	`gate` text NOT NULL,
	`pow_nonce` text,
	`signature_sha256` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `gate_marks_pow_nonce_unique` ON `gate_marks` (`pow_nonce`);--> statement-breakpoint
CREATE UNIQUE INDEX `gate_marks_signature_sha256_unique` ON `gate_marks` (`signature_sha256`);--> statement-breakpoint
CREATE INDEX `gate_marks_brief_idx` ON `gate_marks` (`brief_id`,`at_ms`);--> statement-breakpoint
CREATE INDEX `gate_marks_address_idx` ON `gate_marks` (`address_tag`,`brief_id`,`gate`,`at_ms`);--> statement-breakpoint
CREATE TABLE `reporter_key_records` (
	`organization_id` text NOT NULL,
	`thumbprint` text NOT NULL,
	`reports` integer DEFAULT 0 NOT NULL,
	`valid` integer DEFAULT 0 NOT NULL,
	`spam` integer DEFAULT 0 NOT NULL,
	`not_applicable` integer DEFAULT 0 NOT NULL,
	`duplicate` integer DEFAULT 0 NOT NULL,
	`first_at` text NOT NULL,
	`last_at` text NOT NULL,
	PRIMARY KEY(`organization_id`, `thumbprint`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `vuln_fingerprints` (
	`organization_id` text NOT NULL,
	`fingerprint` text NOT NULL,
	`vuln_id` text NOT NULL,
	PRIMARY KEY(`organization_id`, `fingerprint`, `vuln_id`),
	FOREIGN KEY (`vuln_id`) REFERENCES `vulns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `vuln_fingerprints_vuln_idx` ON `vuln_fingerprints` (`vuln_id`);--> statement-breakpoint
CREATE TABLE `vuln_lsh_bands` (
	`organization_id` text NOT NULL,
	`band_key` integer NOT NULL,
	`vuln_id` text NOT NULL,
	PRIMARY KEY(`organization_id`, `band_key`, `vuln_id`),
	FOREIGN KEY (`vuln_id`) REFERENCES `vulns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `vuln_lsh_bands_vuln_idx` ON `vuln_lsh_bands` (`vuln_id`);--> statement-breakpoint
CREATE TABLE `vuln_signatures` (
	`vuln_id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`version` integer NOT NULL,
	`minhash` text NOT NULL,
	`fingerprints` text NOT NULL,
	FOREIGN KEY (`vuln_id`) REFERENCES `vulns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `vuln_similarities` (
	`vuln_id` text NOT NULL,
	`similar_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`score` real NOT NULL,
	`reasons` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`vuln_id`, `similar_id`),
	FOREIGN KEY (`vuln_id`) REFERENCES `vulns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`similar_id`) REFERENCES `vulns`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `vuln_similarities_score_idx` ON `vuln_similarities` (`vuln_id`,`score`);--> statement-breakpoint
CREATE INDEX `vuln_similarities_similar_idx` ON `vuln_similarities` (`similar_id`);--> statement-breakpoint
ALTER TABLE `briefs` ADD `submission_requirements` text DEFAULT '{"evidence":{},"ai_disclosure":"off"}' NOT NULL;--> statement-breakpoint
ALTER TABLE `briefs` ADD `proof_of_work` text DEFAULT 'off' NOT NULL;--> statement-breakpoint
ALTER TABLE `briefs` ADD `expected_hourly` integer DEFAULT 10 NOT NULL;--> statement-breakpoint
ALTER TABLE `briefs` ADD `daily_cap` integer;--> statement-breakpoint
ALTER TABLE `briefs` ADD `intake_paused_until` text;--> statement-breakpoint
ALTER TABLE `briefs` ADD `intake_paused_message` text;--> statement-breakpoint
ALTER TABLE `briefs` ADD `verified_lane_min_valid` integer;--> statement-breakpoint
ALTER TABLE `vulns` ADD `gate` text DEFAULT 'not_required' NOT NULL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `evidence` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `evidence_complete` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `vulns` ADD `ai_use` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `reporter_key` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `admitted_day` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `release_expected_on` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `possible_duplicate_of_id` text;--> statement-breakpoint
ALTER TABLE `vulns` ADD `possible_duplicate_score` real;--> statement-breakpoint
ALTER TABLE `vulns` ADD `possible_duplicate` integer GENERATED ALWAYS AS (possible_duplicate_of_id IS NOT NULL) VIRTUAL NOT NULL;--> statement-breakpoint
CREATE INDEX `vulns_queued_idx` ON `vulns` (`brief_id`,`created_at`,`id`) WHERE inbox_state = 'queued';--> statement-breakpoint
CREATE INDEX `vulns_brief_admitted_idx` ON `vulns` (`brief_id`,`admitted_day`) WHERE admitted_day IS NOT NULL;--> statement-breakpoint
CREATE INDEX `vulns_organization_reporter_key_idx` ON `vulns` (`organization_id`,`reporter_key`,`created_at`,`id`) WHERE reporter_key IS NOT NULL;--> statement-breakpoint
CREATE INDEX `vulns_organization_gate_idx` ON `vulns` (`organization_id`,`gate`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `vulns_organization_possible_duplicate_idx` ON `vulns` (`organization_id`,`possible_duplicate`,`created_at`,`id`);