-- Legacy jobs and downloads (issue 3): a download keeps its export options (include_properties,
-- include_metadata, sim_th, prop_ranges) so a retried workflow writes the same files; a job keeps
-- scan progress (shards done / total) for the job-info endpoint.
ALTER TABLE downloads ADD COLUMN IF NOT EXISTS params jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE jobs ADD COLUMN IF NOT EXISTS progress jsonb NOT NULL DEFAULT '{}'::jsonb;
CREATE INDEX IF NOT EXISTS uploads_account_created_idx ON uploads (account_id, created_at DESC);
