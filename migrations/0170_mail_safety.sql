-- Mail safety controls (issue 29): printed mail cannot be taken back, so a piece may wait before
-- print (a hold window, an approval), be held by a monthly cap, be skipped by the per-home
-- frequency cap, be cancelled, or be suppressed because the home opted out on a landing page.
ALTER TABLE mail_pieces DROP CONSTRAINT mail_pieces_status_check;
ALTER TABLE mail_pieces ADD CONSTRAINT mail_pieces_status_check
  CHECK (status IN ('queued', 'submitted', 'mailed', 'in_transit', 'delivered', 'returned', 'suppressed', 'failed',
                    'skipped', 'held', 'awaiting_approval', 'capped', 'cancelled'));
-- The earlier piece to the same home that made the frequency cap skip this one.
ALTER TABLE mail_pieces ADD COLUMN earlier_piece_id uuid;
-- Set once, when the piece enters its automation's hold window; a piece past it is never held again.
ALTER TABLE mail_pieces ADD COLUMN hold_until timestamptz;
ALTER TABLE mail_pieces ADD COLUMN approved_at timestamptz;
ALTER TABLE mail_pieces ADD COLUMN approved_by text;
ALTER TABLE mail_pieces ADD COLUMN cancelled_at timestamptz;
ALTER TABLE mail_pieces ADD COLUMN cancelled_by text;
-- Pieces waiting on an operator (held, awaiting approval, capped), per automation, oldest first.
CREATE INDEX mail_pieces_waiting ON mail_pieces (org_id, status, created_at)
  WHERE status IN ('held', 'awaiting_approval', 'capped');

-- Per organization: the frequency cap (days between two cards to one home; 0 = off) and the
-- monthly caps (null = none). One row per org that changed a default.
CREATE TABLE org_mail_safety (
  org_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  frequency_cap_days integer NOT NULL DEFAULT 30 CHECK (frequency_cap_days >= 0),
  monthly_card_cap integer CHECK (monthly_card_cap >= 0),
  monthly_spend_cap_cents integer CHECK (monthly_spend_cap_cents >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Per automation: hold window, approval mode (switching itself off after auto_approve_after
-- approved cards), monthly caps.
CREATE TABLE automation_mail_safety (
  org_id uuid NOT NULL,
  automation_id uuid NOT NULL,
  hold_minutes integer NOT NULL DEFAULT 0 CHECK (hold_minutes >= 0),
  approval_required boolean NOT NULL DEFAULT false,
  auto_approve_after integer CHECK (auto_approve_after >= 1),
  approved_count integer NOT NULL DEFAULT 0,
  monthly_card_cap integer CHECK (monthly_card_cap >= 0),
  monthly_spend_cap_cents integer CHECK (monthly_spend_cap_cents >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, automation_id),
  FOREIGN KEY (org_id, automation_id) REFERENCES automations (org_id, id) ON DELETE CASCADE
);

-- The org's do-not-mail list: homes that asked for no more mail, when and from which piece.
CREATE TABLE do_not_mail (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  normalized_address text NOT NULL,
  reason text NOT NULL CHECK (reason IN ('opted_out')),
  piece_id uuid,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, normalized_address)
);

-- Cap budget claimed per org (automation_id = the nil uuid) or automation, per calendar month
-- (UTC): a conditional UPDATE claims a card, so several workers never pass a cap together.
CREATE TABLE mail_cap_usage (
  org_id uuid NOT NULL,
  automation_id uuid NOT NULL,
  month date NOT NULL,
  cards integer NOT NULL DEFAULT 0,
  cents bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, automation_id, month)
);
