import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { type Queryable, sql } from "../../src/db/database.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { rekeyingMigration } from "../helpers/rekeying-migration.ts";
import { storedKeys } from "../helpers/stored-address-keys.ts";

const REKEY_MIGRATION = "0440_comma_town_keys";
const {
  openBeforeRekey,
  migrateThroughRekey,
  itChangesNothingWithoutSuchKeys,
  itAppliesOnceWhenTwoProcessesMigrate,
} = rekeyingMigration(REKEY_MIGRATION);

/** "100 Broadway, Long Beach, CA 90802" as keyed before (the town read into the street), and now. */
const OLD = "100 BROADWAY LONG BCH, CA 90802";
const NEW = "100 BROADWAY, LONG BEACH CA 90802";
/** "20 Calle Ocho Coral Gables FL 33134" before (the street's last word read into the town), and now. */
const OLD_IN_TOWN = "20 CALLE, OCHO CORAL GABLES FL 33134";
const NEW_CALLE = "20 CALLE OCHO, CORAL GABLES FL 33134";

/** Rows as the service stored them before the fix, written in SQL (today's code keys them anew). */
async function seedOldKeys(db: Queryable) {
  const rita = randomUUID();
  await db.execute(sql`INSERT INTO organizations (id, name) VALUES (${rita}, 'Rita')`);
  const campaign = randomUUID();
  await db.execute(
    sql`INSERT INTO campaigns (org_id, id, name, origin) VALUES (${rita}::uuid, ${campaign}::uuid, 'History', 'mailing')`,
  );
  const piece = async (address: string, key: string) => {
    const id = randomUUID();
    await db.execute(
      sql`INSERT INTO mail_pieces (org_id, id, campaign_id, status, address, normalized_address, token, mailed_at)
          VALUES (${rita}::uuid, ${id}::uuid, ${campaign}::uuid, 'mailed', ${address}, ${key}, ${randomUUID()},
                  '2026-05-01T10:00:00Z')`,
    );
    return id;
  };
  const card = await piece("100 Broadway, Long Beach, CA 90802", OLD);
  await piece("100 Broadway Long Beach CA 90802", OLD);
  await piece("100 Broadway, Long Beach CA 90802", NEW);
  await piece("7 Via Roma, Newport Beach CA", "7 VIA ROMA NEWPORT BCH, CA");
  await piece("20 Calle Ocho Coral Gables FL 33134", OLD_IN_TOWN);
  // Candidates whose text keys the same today, and an ordinary address: they stay.
  await piece("40 Mill Creek Rd, 62704", "40 MILL CREEK RD, IL 62704");
  await piece("12 Kings Hwy, Park Ridge, IL 60068", "12 KINGS HWY, PARK RIDGE IL 60068");
  await piece("5 Elm St, Springfield, IL 62704", "5 ELM ST, SPRINGFIELD IL 62704");
  // An old-shaped key whose text now keys as another place (an older parser's key): left.
  await piece("100 Broadway, Long Beach, NY 11561", OLD);

  await db.execute(
    sql`INSERT INTO leads (org_id, id, source, full_address, normalized_address)
        VALUES (${rita}::uuid, ${randomUUID()}::uuid, 'crm_sync', '50 Broadway, Saratoga Springs, NY 12866',
                '50 BROADWAY SARATOGA SPGS, NY 12866')`,
  );
  await db.execute(
    sql`INSERT INTO conversions (org_id, id, idempotency_key, address, normalized_address, campaign_id,
          match_method, match_confidence, attribution_type, created_at)
        VALUES (${rita}::uuid, ${randomUUID()}::uuid, 'address:' || ${OLD} || '|2026-06-15',
                '100 Broadway Long Beach CA 90802', ${OLD}, ${campaign}::uuid, 'address', 'medium',
                'indirect', '2026-06-15T09:00:00Z')`,
  );
  const batch = randomUUID();
  await db.execute(
    sql`INSERT INTO imports (org_id, id, source, status, staged) VALUES (${rita}::uuid, ${batch}::uuid, 'jobs', 'staged', 1)`,
  );
  await db.execute(
    sql`INSERT INTO import_rows (org_id, import_id, row_index, address, normalized_address)
        VALUES (${rita}::uuid, ${batch}::uuid, 0, '15 Esplanade, Redondo Beach, CA 90277', '15 ESPLANADE REDONDO BCH, CA 90277')`,
  );
  // Registered in the old form first, then again after the fix (with notes): one customer now.
  await db.execute(
    sql`INSERT INTO customers (org_id, normalized_address, address, notes, source, created_at)
        VALUES (${rita}::uuid, ${OLD}, '100 Broadway, Long Beach, CA 90802', NULL, 'webhook', '2026-01-01T00:00:00Z'),
               (${rita}::uuid, ${NEW}, '100 Broadway Long Beach CA 90802', 'side door', 'app', '2026-02-01T00:00:00Z')`,
  );
  await db.execute(
    sql`INSERT INTO do_not_mail (org_id, normalized_address, reason, piece_id, created_at)
        VALUES (${rita}::uuid, ${OLD}, 'opted_out', ${card}::uuid, '2026-05-10T00:00:00Z')`,
  );
  await db.execute(
    sql`INSERT INTO reference_addresses (normalized_address, street, city, state, zip, latitude, longitude)
        VALUES ('10 VIA ROMA NEWPORT BCH, CA 92660', '10 Via Roma', 'Newport Beach', 'CA', '92660', 33.6, -117.9)`,
  );
  await db.execute(sql`INSERT INTO reference_address_zips (zip, homes) VALUES ('92660', 1)`);
  await db.execute(
    sql`INSERT INTO neighbour_campaigns (org_id, campaign_id, job_street, job_city, latitude, longitude, count, radius_m, home_key)
        VALUES (${rita}::uuid, ${randomUUID()}::uuid, '10 Via Roma', 'Newport Beach', 33.6, -117.9, 10, 400,
                '10 VIA ROMA NEWPORT BCH, CA 92660')`,
  );
}

describe(`migration 0440 re-keying addresses whose town was read into the street (${databaseLabel})`, () => {
  it("re-keys each old form in every table, keeps one row where the new key was taken, and leaves other keys", async () => {
    const { database, drop } = await openBeforeRekey();
    const db = database.db;
    try {
      await seedOldKeys(db);
      assert.deepEqual(await migrateThroughRekey(db), [REKEY_MIGRATION]);
      const keys = await storedKeys(db);
      assert.deepEqual(
        { ...keys, pieces: keys.pieces.sort() },
        {
          pieces: [
            `100 Broadway Long Beach CA 90802 → ${NEW}`,
            `100 Broadway, Long Beach CA 90802 → ${NEW}`,
            `100 Broadway, Long Beach, CA 90802 → ${NEW}`,
            `100 Broadway, Long Beach, NY 11561 → ${OLD}`,
            "12 Kings Hwy, Park Ridge, IL 60068 → 12 KINGS HWY, PARK RIDGE IL 60068",
            `20 Calle Ocho Coral Gables FL 33134 → ${NEW_CALLE}`,
            "40 Mill Creek Rd, 62704 → 40 MILL CREEK RD, IL 62704",
            "5 Elm St, Springfield, IL 62704 → 5 ELM ST, SPRINGFIELD IL 62704",
            "7 Via Roma, Newport Beach CA → 7 VIA ROMA, NEWPORT BEACH CA",
          ].sort(),
          leads: ["50 Broadway, Saratoga Springs, NY 12866 → 50 BROADWAY, SARATOGA SPRINGS NY 12866"],
          conversions: [`100 Broadway Long Beach CA 90802 → ${NEW} (address:${NEW}|2026-06-15)`],
          heldOutDeals: [],
          importRows: ["15 Esplanade, Redondo Beach, CA 90277 → 15 ESPLANADE, REDONDO BEACH CA 90277"],
          customers: [`Rita: ${NEW} (100 Broadway, Long Beach, CA 90802, webhook, side door, 2026-01-01)`],
          doNotMail: [`${NEW} (100 Broadway, Long Beach, CA 90802, 2026-05-10)`],
          reference: ["10 VIA ROMA, NEWPORT BEACH CA 92660 (10 Via Roma)"],
          homesOfZip: ["92660: 1"],
          neighbourHomes: ["10 VIA ROMA, NEWPORT BEACH CA 92660"],
        },
      );
      // What the service computes today for those texts is what is stored now.
      assert.equal(normalizeAddress("100 Broadway, Long Beach, CA 90802"), NEW);
      assert.equal(normalizeAddress("20 Calle Ocho Coral Gables FL 33134"), NEW_CALLE);

      const after = await storedKeys(db);
      assert.deepEqual(await migrateThroughRekey(db), [], "a second run applies nothing");
      assert.deepEqual(await storedKeys(db), after);
    } finally {
      await drop();
    }
  });

  itChangesNothingWithoutSuchKeys();

  itAppliesOnceWhenTwoProcessesMigrate(seedOldKeys, { customers: 1, doNotMail: 1 });
});
