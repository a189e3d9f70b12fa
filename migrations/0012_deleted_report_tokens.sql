CREATE TABLE `deleted_report_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`deleted_at` text NOT NULL
);
