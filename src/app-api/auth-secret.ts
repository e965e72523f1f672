import type { Config } from "../config.ts";
import type { Queryable } from "../db/database.ts";
import { generatedSecret } from "../db/platform-settings.ts";

/** The platform_settings row that holds the generated secret when AUTH_SECRET is unset. */
const SETTING_KEY = "app_session_secret";

/**
 * The secret that signs the app's session cookies: AUTH_SECRET when set, else a random 256-bit
 * secret generated on the first start and kept in the database beside the sessions it signs. Every
 * process on that database (API instances behind a load balancer, workers) reads the same one, so a
 * session signed by one instance is valid on all, and it survives restarts and a changed ADMIN_TOKEN.
 */
export async function resolveAuthSecret(db: Queryable, config: Pick<Config, "authSecret">): Promise<string> {
  return config.authSecret ?? generatedSecret(db, SETTING_KEY);
}
