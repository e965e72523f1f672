-- An invitation's link carries a secret of its own (issue 37): 32 random bytes, stored only as
-- their SHA-256 (token_hash). Until now the link's token was the invitation's id, which the app
-- handed to the inviting owner and lists under the team's pending invitations: an owner could
-- accept an invitation meant for someone else's mailbox. The id stays the row's key (Better Auth
-- accepts by it; owners cancel by it) and accepts nothing.
ALTER TABLE org_invitations ADD COLUMN token_hash text;
CREATE UNIQUE INDEX org_invitations_token_hash ON org_invitations (token_hash);

-- Links issued before this carry the id, which owners have seen: they stop working. Whoever
-- still needs to join is invited again (the new email carries a new link).
UPDATE org_invitations SET status = 'canceled' WHERE status = 'pending';
