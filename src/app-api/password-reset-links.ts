import { type Queryable, sql } from "../db/database.ts";

/** Better Auth keeps each reset link as a verification `reset-password:{token}` whose value is the user's id. */
const RESET_LINK_PREFIX = "reset-password:";

/**
 * Ends every reset link still open for the user. Better Auth uses up only the link that was used:
 * another one asked for the same account stayed usable for its hour, after a reset or a password
 * change alike, so whoever else had read one of the mails could take the account back.
 */
export async function endResetLinks(db: Queryable, userId: string): Promise<void> {
  await db.execute(
    sql`DELETE FROM auth_verifications
        WHERE value = ${userId} AND starts_with(identifier, ${RESET_LINK_PREFIX})`,
  );
}
