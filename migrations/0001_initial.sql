-- The whole data model of the developer API. Every tenant table leads with org_id so the
-- database can later be distributed by organization (Citus-style); global tables say so.

CREATE TABLE organizations (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  billing_owner boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Platform-wide settings (global): the automations kill switch lives here.
CREATE TABLE platform_settings (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  org_id uuid NOT NULL REFERENCES organizations (id),
  id uuid NOT NULL,
  name text NOT NULL DEFAULT '',
  key_hash text NOT NULL,
  scopes text[],
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  PRIMARY KEY (org_id, id)
);
CREATE UNIQUE INDEX api_keys_key_hash ON api_keys (key_hash);
CREATE INDEX api_keys_id ON api_keys (id);

CREATE TABLE automations (
  org_id uuid NOT NULL REFERENCES organizations (id),
  id uuid NOT NULL,
  name text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  kind text NOT NULL DEFAULT 'standard' CHECK (kind IN ('standard', 'deal_won')),
  -- The binding: `custom.<event_type>`; NULL when the automation is fired only by the legacy trigger.
  trigger_binding text,
  trigger_object_type text CHECK (trigger_object_type IN ('job', 'deal', 'contact')),
  filters jsonb NOT NULL DEFAULT '[]'::jsonb,
  suppress_customers boolean NOT NULL DEFAULT true,
  template jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, id)
);
CREATE INDEX automations_binding ON automations (org_id, trigger_binding) WHERE enabled;
CREATE INDEX automations_id ON automations (id);

CREATE TABLE connections (
  org_id uuid NOT NULL REFERENCES organizations (id),
  provider text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, provider)
);

CREATE TABLE campaigns (
  org_id uuid NOT NULL REFERENCES organizations (id),
  id uuid NOT NULL,
  name text NOT NULL,
  automation_id uuid,
  -- 'event' (POST /api/v1/events), 'trigger' (legacy trigger), 'mailing' (recorded mail history).
  origin text NOT NULL CHECK (origin IN ('event', 'trigger', 'mailing')),
  -- Idempotency of enqueues: one campaign per (automation, dedup key). The key is the event's
  -- dedup_id (dedup_kind 'event') or the trigger's deal_id (dedup_kind 'deal').
  dedup_kind text,
  dedup_key text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, id)
);
CREATE UNIQUE INDEX campaigns_dedup ON campaigns (org_id, automation_id, dedup_kind, dedup_key)
  WHERE dedup_key IS NOT NULL;
CREATE INDEX campaigns_created ON campaigns (org_id, created_at DESC);

CREATE TABLE mail_pieces (
  org_id uuid NOT NULL REFERENCES organizations (id),
  id uuid NOT NULL,
  campaign_id uuid NOT NULL,
  status text NOT NULL DEFAULT 'queued'
    CHECK (status IN ('queued', 'mailed', 'in_transit', 'delivered', 'returned', 'suppressed', 'failed')),
  recipient_name text,
  address text NOT NULL,
  street text,
  city text,
  state text,
  zip text,
  normalized_address text NOT NULL,
  latitude double precision,
  longitude double precision,
  geo_precision text,
  token text NOT NULL,
  properties jsonb NOT NULL DEFAULT '{}'::jsonb,
  mailed_at timestamptz,
  provider text,
  provider_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, id)
);
CREATE UNIQUE INDEX mail_pieces_token ON mail_pieces (token);
CREATE INDEX mail_pieces_campaign ON mail_pieces (org_id, campaign_id);
CREATE INDEX mail_pieces_id ON mail_pieces (id);
-- Attribution by normalized address: last touch within the window is one index range scan.
CREATE INDEX mail_pieces_address_mailed ON mail_pieces (org_id, normalized_address, mailed_at DESC)
  WHERE mailed_at IS NOT NULL;
-- Attribution by point: a bounding-box range on latitude, then longitude.
CREATE INDEX mail_pieces_geo ON mail_pieces (org_id, latitude, longitude)
  WHERE mailed_at IS NOT NULL AND latitude IS NOT NULL;

CREATE TABLE lead_fields (
  org_id uuid NOT NULL REFERENCES organizations (id),
  field_id text NOT NULL,
  label text NOT NULL,
  type text NOT NULL CHECK (type IN ('text', 'select', 'multiselect', 'checkbox')),
  options jsonb NOT NULL DEFAULT '[]'::jsonb,
  position integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, field_id)
);

CREATE TABLE leads (
  org_id uuid NOT NULL REFERENCES organizations (id),
  id uuid NOT NULL,
  -- 'landing_page' (delivered and polled) or 'crm_sync' (tracking endpoint; never delivered).
  source text NOT NULL CHECK (source IN ('landing_page', 'crm_sync')),
  campaign_id uuid,
  piece_id uuid,
  first_name text NOT NULL DEFAULT '',
  last_name text NOT NULL DEFAULT '',
  email text NOT NULL DEFAULT '',
  phone text NOT NULL DEFAULT '',
  message text NOT NULL DEFAULT '',
  street text NOT NULL DEFAULT '',
  city text NOT NULL DEFAULT '',
  state text NOT NULL DEFAULT '',
  postal_code text NOT NULL DEFAULT '',
  country text NOT NULL DEFAULT '',
  full_address text NOT NULL DEFAULT '',
  normalized_address text,
  latitude double precision,
  longitude double precision,
  custom_fields jsonb NOT NULL DEFAULT '[]'::jsonb,
  attribution_type text,
  crm_record_id text,
  -- Idempotency key of a synced lead (crm_record_id, else email, else phone); NULL keeps it distinct.
  sync_key text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, id)
);
CREATE INDEX leads_source_created ON leads (org_id, source, created_at DESC);
CREATE INDEX leads_address ON leads (org_id, normalized_address) WHERE normalized_address IS NOT NULL;
CREATE UNIQUE INDEX leads_sync_key ON leads (org_id, sync_key) WHERE sync_key IS NOT NULL;

CREATE TABLE subscriptions (
  org_id uuid NOT NULL REFERENCES organizations (id),
  id uuid NOT NULL,
  target_url text NOT NULL,
  event text NOT NULL DEFAULT 'lead.created',
  -- NULL: a legacy subscription created before signing existed; its deliveries are unsigned.
  signing_secret text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, id)
);
CREATE UNIQUE INDEX subscriptions_target ON subscriptions (org_id, target_url, event);

CREATE TABLE deliveries (
  org_id uuid NOT NULL REFERENCES organizations (id),
  id uuid NOT NULL,
  lead_id uuid NOT NULL,
  subscription_id uuid NOT NULL,
  target_url text NOT NULL,
  signed boolean NOT NULL,
  -- 'attempted' (the request completed, any status), 'blocked', 'timeout', 'error'.
  outcome text NOT NULL,
  status_code integer,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, id)
);
CREATE INDEX deliveries_created ON deliveries (org_id, created_at DESC);

CREATE TABLE conversions (
  org_id uuid NOT NULL REFERENCES organizations (id),
  id uuid NOT NULL,
  idempotency_key text NOT NULL,
  deal_id text,
  address text NOT NULL,
  normalized_address text NOT NULL,
  deal_amount numeric,
  deal_date timestamptz,
  deal_stage text,
  deal_name text,
  contact_first_name text,
  contact_last_name text,
  contact_name text,
  contact_email text,
  campaign_id uuid NOT NULL,
  piece_id uuid,
  match_method text NOT NULL,
  match_confidence text NOT NULL,
  attribution_type text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, id)
);
CREATE UNIQUE INDEX conversions_idempotency ON conversions (org_id, idempotency_key);
CREATE INDEX conversions_created ON conversions (org_id, created_at DESC);

CREATE TABLE customers (
  org_id uuid NOT NULL REFERENCES organizations (id),
  normalized_address text NOT NULL,
  address text NOT NULL,
  notes text,
  source text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, normalized_address)
);
CREATE INDEX customers_created ON customers (org_id, created_at DESC);

CREATE TABLE imports (
  org_id uuid NOT NULL REFERENCES organizations (id),
  id uuid NOT NULL,
  source text NOT NULL CHECK (source IN ('jobs', 'customers')),
  idempotency_key text,
  -- 'processing' while a keyed request holds the key; 'staged' once the batch is written.
  status text NOT NULL CHECK (status IN ('processing', 'staged')),
  staged integer NOT NULL DEFAULT 0,
  skipped_no_address integer NOT NULL DEFAULT 0,
  skipped_geocode_failed integer NOT NULL DEFAULT 0,
  claimed_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  staged_at timestamptz,
  PRIMARY KEY (org_id, id)
);
CREATE UNIQUE INDEX imports_idempotency ON imports (org_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX imports_staged_day ON imports (org_id, staged_at) WHERE status = 'staged';

CREATE TABLE import_rows (
  org_id uuid NOT NULL REFERENCES organizations (id),
  import_id uuid NOT NULL,
  row_index integer NOT NULL,
  address text NOT NULL,
  normalized_address text NOT NULL,
  latitude double precision,
  longitude double precision,
  geo_precision text,
  external_id text,
  customer_name text,
  completed_at date,
  PRIMARY KEY (org_id, import_id, row_index)
);

CREATE TABLE event_samples (
  org_id uuid NOT NULL REFERENCES organizations (id),
  id uuid NOT NULL,
  event_type text NOT NULL,
  envelope jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, id)
);
CREATE INDEX event_samples_type ON event_samples (org_id, event_type, received_at DESC);

CREATE TABLE webhook_log (
  org_id uuid NOT NULL REFERENCES organizations (id),
  id uuid NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  source text NOT NULL,
  automation_id uuid,
  event_type text,
  dedup_id text,
  level text NOT NULL CHECK (level IN ('info', 'warn', 'error')),
  message text NOT NULL,
  PRIMARY KEY (org_id, id)
);
CREATE INDEX webhook_log_at ON webhook_log (org_id, at DESC);

-- Durable background work (webhook deliveries, geocoding, rendering, printing), claimed with
-- FOR UPDATE SKIP LOCKED by any worker process. Jobs carry ids, not data.
CREATE TABLE jobs (
  id uuid PRIMARY KEY,
  org_id uuid,
  kind text NOT NULL,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 5,
  run_at timestamptz NOT NULL DEFAULT now(),
  locked_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_ready ON jobs (run_at) WHERE status IN ('pending', 'running');

-- Geocoder answers per normalized address (global: an address's location is not tenant data).
CREATE TABLE geocode_cache (
  provider text NOT NULL,
  normalized_address text NOT NULL,
  result jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, normalized_address)
);
