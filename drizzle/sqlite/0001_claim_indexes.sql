DROP INDEX `jobs_kind_status_idx`;--> statement-breakpoint
DROP INDEX `jobs_ready_idx`;--> statement-breakpoint
CREATE INDEX `jobs_running_key_idx` ON `jobs` (`kind`,`concurrency_key`) WHERE status = 'running' AND concurrency_key IS NOT NULL;--> statement-breakpoint
CREATE INDEX `jobs_ready_idx` ON `jobs` (`kind`,"priority" desc,`run_at`,`id`,`concurrency_key`,`status`) WHERE status IN ('queued', 'failed');