-- A card no carrier could deliver can be sent again to a corrected address (the contractor's app:
-- POST /app/api/v1/pieces/{id}/resend). A finished job sends no next event, so fixing the address in
-- the CRM alone never mailed the home (walk, 2026-12-07). The new card is a piece of the same
-- campaign naming the one it corrects; the partial unique index lets each card be corrected once,
-- whoever clicks twice or at the same time.
ALTER TABLE mail_pieces ADD COLUMN corrects_piece_id uuid;
CREATE UNIQUE INDEX mail_pieces_corrects_piece ON mail_pieces (org_id, corrects_piece_id)
  WHERE corrects_piece_id IS NOT NULL;
