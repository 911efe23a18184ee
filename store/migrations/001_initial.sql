-- Initial schema of the metadata store: accounts and keys, daily usage, legacy jobs, downloads,
-- uploads, v2 runs with items, events and idempotency keys. Plain PostgreSQL that PGlite runs too.
-- Ids are text so that workflow ids (job names, run ids) can be primary keys as they are.

CREATE TABLE accounts (
  id          text PRIMARY KEY,
  user_name   text NOT NULL UNIQUE,
  tier        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Only the SHA-256 (hex) of a key is stored; prefix is its first 8 characters, for display.
-- tier, when set, overrides the account's tier for requests made with this key.
CREATE TABLE api_keys (
  id            text PRIMARY KEY,
  account_id    text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  key_hash      text NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  prefix        text NOT NULL,
  tier          text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz,
  revoked_at    timestamptz,
  last_used_at  timestamptz
);
CREATE INDEX api_keys_account_idx ON api_keys (account_id);
CREATE INDEX api_keys_prefix_idx ON api_keys (prefix);

-- One counter per account and UTC day, incremented atomically by one upsert per request.
CREATE TABLE usage_daily (
  account_id  text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  day         date NOT NULL,
  count       integer NOT NULL DEFAULT 0 CHECK (count >= 0),
  PRIMARY KEY (account_id, day)
);

-- Legacy jobs; id is the job name, which is also the Temporal workflow id.
CREATE TABLE jobs (
  id           text PRIMARY KEY,
  account_id   text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  kind         text NOT NULL,
  status       text NOT NULL,
  params       jsonb NOT NULL DEFAULT '{}'::jsonb,
  result_key   text,
  error        text,
  rows         integer,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz
);
CREATE INDEX jobs_account_created_idx ON jobs (account_id, created_at DESC);

CREATE TABLE downloads (
  id          text PRIMARY KEY,
  job_id      text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  account_id  text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  formats     jsonb NOT NULL DEFAULT '[]'::jsonb,
  status      text NOT NULL,
  keys        jsonb NOT NULL DEFAULT '{}'::jsonb,
  error       text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX downloads_job_idx ON downloads (job_id);
CREATE INDEX downloads_account_created_idx ON downloads (account_id, created_at DESC);

CREATE TABLE uploads (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  path        text NOT NULL,
  object_key  text NOT NULL,
  bytes       bigint NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX uploads_account_path_idx ON uploads (account_id, path);

-- v2 runs; id is also the Temporal workflow id.
CREATE TABLE runs (
  id                   text PRIMARY KEY,
  account_id           text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  kind                 text NOT NULL,
  status               text NOT NULL,
  document             jsonb NOT NULL,
  specification_hash   text,
  metadata             jsonb NOT NULL DEFAULT '{}'::jsonb,
  progress             jsonb NOT NULL DEFAULT '{}'::jsonb,
  last_event_sequence  integer NOT NULL DEFAULT 0,
  idempotency_key      text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  expires_at           timestamptz
);
-- Cursor paging of GET /api/v2/runs: newest first, id as tie-breaker.
CREATE INDEX runs_account_created_idx ON runs (account_id, created_at DESC, id DESC);
CREATE INDEX runs_account_status_idx ON runs (account_id, status);

CREATE TABLE run_items (
  run_id         text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  item_id        text NOT NULL,
  input_index    integer NOT NULL,
  status         text NOT NULL,
  attempt_count  integer NOT NULL DEFAULT 0,
  result_key     text,
  result         jsonb,
  error          jsonb,
  completed_seq  bigint,
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, item_id)
);
CREATE INDEX run_items_input_idx ON run_items (run_id, input_index);
CREATE INDEX run_items_completed_idx ON run_items (run_id, completed_seq);

-- Appended idempotently by (run_id, sequence); served as pages (after = last sequence) and SSE.
CREATE TABLE run_events (
  run_id      text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  sequence    integer NOT NULL,
  type        text NOT NULL,
  item_id     text,
  status      text,
  progress    jsonb,
  payload     jsonb,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, sequence)
);

-- Idempotency-Key scoped to the caller: one key maps to one run (and one request hash).
CREATE TABLE idempotency_keys (
  account_id    text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  key           text NOT NULL,
  request_hash  text NOT NULL,
  run_id        text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, key)
);
