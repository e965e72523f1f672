import { randomUUID } from "node:crypto";
import { type Database, openDatabase, sql } from "../../src/db/database.ts";
import { migrate } from "../../src/db/migrate.ts";
import { generateApiKey, hashApiKey } from "../../src/domain/api-key-format.ts";
import type { ScenarioDatabase } from "./databases.ts";

/**
 * Opens the scenario's database from the bench process, before the service starts (a PGlite
 * directory belongs to one process at a time), migrated like the service would.
 */
export async function openForSeeding(database: ScenarioDatabase): Promise<Database> {
  const opened = await openDatabase({ databaseUrl: database.url, dataDir: database.env.DATA_DIR });
  await migrate(opened.db);
  return opened;
}

/** An organization with one unrestricted key, written directly (the key is returned once). */
export async function seedOrg(database: Database, name: string): Promise<{ orgId: string; key: string }> {
  const orgId = randomUUID();
  const key = generateApiKey();
  await database.db.execute(sql`INSERT INTO organizations (id, name) VALUES (${orgId}, ${name})`);
  await database.db.execute(
    sql`INSERT INTO api_keys (org_id, id, name, key_hash) VALUES (${orgId}, ${randomUUID()}, 'bench', ${hashApiKey(key)})`,
  );
  return { orgId, key };
}

export const benchAddress = (houseNumber: number) => `${houseNumber} Bench St, Springfield, IL 62701`;

/**
 * `count` mailed pieces of one campaign, at addresses 1..count Bench St, mailed over the last
 * 150 days, in one INSERT … SELECT generate_series.
 */
export async function seedMailedPieces(database: Database, orgId: string, count: number): Promise<string> {
  const campaignId = randomUUID();
  await database.db.execute(
    sql`INSERT INTO campaigns (org_id, id, name, origin) VALUES (${orgId}, ${campaignId}, 'Bench mailing', 'mailing')`,
  );
  await database.db.execute(sql`
    INSERT INTO mail_pieces (org_id, id, campaign_id, status, address, street, city, state, zip,
                             normalized_address, token, mailed_at)
    SELECT ${orgId}::uuid, gen_random_uuid(), ${campaignId}::uuid, 'mailed',
           g || ' Bench St, Springfield, IL 62701', g || ' Bench St', 'Springfield', 'IL', '62701',
           g || ' BENCH ST, SPRINGFIELD IL 62701', ${campaignId.slice(0, 8)} || '-' || g,
           now() - make_interval(days => g % 150)
    FROM generate_series(1, ${count}::int) AS g`);
  await database.db.execute(sql`ANALYZE mail_pieces`);
  return campaignId;
}
