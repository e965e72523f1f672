import { randomBytes } from "node:crypto";
import { type Queryable, queryOne, sql } from "./database.ts";

/*
 * platform_settings: the deployment's own key/value store (one row per key, a JSON value), for
 * state every process on the database shares and no organization owns: the automations kill
 * switch, the generated secrets (the session's, the HubSpot tokens' key).
 */

/** The setting's value, or undefined when the key has none. */
export async function readPlatformSetting<Value>(db: Queryable, key: string): Promise<Value | undefined> {
  const row = await queryOne<{ value: Value }>(
    db,
    sql`SELECT value FROM platform_settings WHERE key = ${key}`,
  );
  return row?.value;
}

/** Sets the setting, replacing any value it had. */
export async function writePlatformSetting(db: Queryable, key: string, value: unknown): Promise<void> {
  await db.execute(
    sql`INSERT INTO platform_settings (key, value, updated_at)
        VALUES (${key}, ${JSON.stringify(value)}::jsonb, now())
        ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
  );
}

/** Sets the setting unless it already has a value (the first of racing writers wins). */
export async function writePlatformSettingOnce(db: Queryable, key: string, value: unknown): Promise<void> {
  await db.execute(
    sql`INSERT INTO platform_settings (key, value)
        VALUES (${key}, ${JSON.stringify(value)}::jsonb)
        ON CONFLICT (key) DO NOTHING`,
  );
}

/**
 * A random 256-bit secret generated on the first call and kept under `key`, so every process on
 * the database reads the same one. Two first calls racing both insert; the first insert wins and
 * both read it back.
 */
export async function generatedSecret(db: Queryable, key: string): Promise<string> {
  await writePlatformSettingOnce(db, key, { secret: randomBytes(32).toString("base64url") });
  const secret = (await readPlatformSetting<{ secret?: unknown }>(db, key))?.secret;
  if (typeof secret !== "string" || secret.length < 32) {
    throw new Error(`platform_settings '${key}' holds no usable secret; delete the row to generate one`);
  }
  return secret;
}
