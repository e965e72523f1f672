-- The month whose cap budget a piece claimed (mail safety, issue 29): a retried job claims no second card.
ALTER TABLE mail_pieces ADD COLUMN cap_claimed_month date;
