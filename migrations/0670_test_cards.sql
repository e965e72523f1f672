-- A test card: one card of one automation that an owner sends from the app to an address they type
-- (POST /app/api/v1/automations/{id}/test-card), so a contractor without a CRM or a developer sees
-- the real card, its QR code and landing page. Its campaign says so: it gets no follow-ups and is
-- never held out (trigger/test-card.ts).
ALTER TABLE campaigns DROP CONSTRAINT campaigns_origin_check;
ALTER TABLE campaigns ADD CONSTRAINT campaigns_origin_check
  CHECK (origin IN ('event', 'trigger', 'mailing', 'reactivation', 'test_card'));
