-- Accounts of the contractor's app (issue 27), stored for Better Auth through its drizzle adapter
-- (src/app-api/auth-schema.ts mirrors these tables). Organizations stay the one tenant table:
-- Better Auth's organization model is mapped onto it, with the three columns it needs added.
ALTER TABLE organizations ADD COLUMN slug text;
ALTER TABLE organizations ADD COLUMN logo text;
ALTER TABLE organizations ADD COLUMN metadata text;
CREATE UNIQUE INDEX organizations_slug ON organizations (slug);

-- Ids are Better Auth's own (text): a malformed id in a request is then "not found", never a cast error.
CREATE TABLE users (
  id text PRIMARY KEY,
  name text NOT NULL,
  email text NOT NULL,
  email_verified boolean NOT NULL DEFAULT false,
  image text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email ON users (email);

CREATE TABLE user_sessions (
  id text PRIMARY KEY,
  token text NOT NULL,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  ip_address text,
  user_agent text,
  active_org_id uuid REFERENCES organizations (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX user_sessions_token ON user_sessions (token);
CREATE INDEX user_sessions_user ON user_sessions (user_id);

CREATE TABLE user_accounts (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  account_id text NOT NULL,
  provider_id text NOT NULL,
  access_token text,
  refresh_token text,
  id_token text,
  access_token_expires_at timestamptz,
  refresh_token_expires_at timestamptz,
  scope text,
  password text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX user_accounts_user ON user_accounts (user_id);

CREATE TABLE auth_verifications (
  id text PRIMARY KEY,
  identifier text NOT NULL,
  value text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_verifications_identifier ON auth_verifications (identifier);

-- Sign-in and reset counters (Better Auth's rate limiter), shared by every instance.
CREATE TABLE auth_rate_limits (
  id text PRIMARY KEY,
  key text NOT NULL,
  count integer NOT NULL,
  last_request bigint NOT NULL
);
CREATE UNIQUE INDEX auth_rate_limits_key ON auth_rate_limits (key);

CREATE TABLE org_members (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX org_members_user ON org_members (user_id, org_id);
CREATE INDEX org_members_org ON org_members (org_id);

-- inviter_id is null when the operator invited (the operator is not a user).
CREATE TABLE org_invitations (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  id text PRIMARY KEY,
  email text NOT NULL,
  role text NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'member')),
  status text NOT NULL DEFAULT 'pending',
  expires_at timestamptz NOT NULL,
  inviter_id text REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX org_invitations_org ON org_invitations (org_id);
CREATE INDEX org_invitations_email ON org_invitations (email);
