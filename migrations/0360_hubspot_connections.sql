-- HubSpot, natively (issue 43 part 3): an organization's connected portal, the OAuth states of
-- connects in progress, and the webhook events received (de-duplicated by HubSpot's eventId).

-- One portal per organization and one organization per portal: a webhook's portalId names
-- exactly one organization. Tokens are sealed (AES-256-GCM) by hubspot/token-cipher.ts.
CREATE TABLE hubspot_connections (
  org_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  portal_id text NOT NULL,
  access_token_sealed text NOT NULL,
  refresh_token_sealed text NOT NULL,
  access_token_expires_at timestamptz NOT NULL,
  -- Deal stages whose deals are won (internal stage ids): a deal moved into one is a conversion.
  won_stages text[] NOT NULL DEFAULT ARRAY['closedwon'],
  connected_by text,
  connected_at timestamptz NOT NULL,
  last_event_at timestamptz,
  -- Set when HubSpot refused the refresh token (the app was uninstalled): the owner reconnects.
  needs_reconnect_since timestamptz,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX hubspot_connections_portal ON hubspot_connections (portal_id);

-- A connect in progress: the state sent to HubSpot (stored as its SHA-256), bound to the session
-- that asked, single-use, short-lived.
CREATE TABLE hubspot_oauth_states (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  state_hash text PRIMARY KEY,
  session_id text NOT NULL,
  user_id text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX hubspot_oauth_states_expiry ON hubspot_oauth_states (expires_at);

-- Each webhook event once (HubSpot retries a batch it thinks failed): the job that processes it
-- carries its key, and its outcome is written back.
CREATE TABLE hubspot_events (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  event_id text NOT NULL,
  subscription_type text NOT NULL,
  object_id text NOT NULL,
  property_name text,
  property_value text,
  occurred_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL,
  processed_at timestamptz,
  outcome text,
  PRIMARY KEY (org_id, event_id)
);
CREATE INDEX hubspot_events_received ON hubspot_events (org_id, received_at);
