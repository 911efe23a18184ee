-- v2 runs: retention purge by expiry, item listing by status, events listed by run in order.
CREATE INDEX IF NOT EXISTS runs_expires_idx ON runs (expires_at);
CREATE INDEX IF NOT EXISTS run_items_status_idx ON run_items (run_id, status, input_index);
ALTER TABLE runs ADD COLUMN IF NOT EXISTS request_id text;
