import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { type Queryable, sql } from "../../src/db/database.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { rekeyingMigration } from "../helpers/rekeying-migration.ts";
import { storedKeys } from "../helpers/stored-address-keys.ts";

const REKEY_MIGRATION = "0410_street_type_keys";
const {
  openBeforeRekey,
  migrateThroughRekey,
  itChangesNothingWithoutSuchKeys,
  itAppliesOnceWhenTwoProcessesMigrate,
} = rekeyingMigration(REKEY_MIGRATION);

/** "40 Mill Creek Rd, 62704" as the parser keyed it before: "Creek" the type, "Rd" the town. */
const OLD = "40 MILL CRK, RD IL 62704";
const NEW = "40 MILL CREEK RD, IL 62704";

/**
 * Rows as the service stored them before the parser fix, written straight in SQL (the code of
 * today would key them in the new form): the old form in every table, a collision under each
 * primary key, and rows the migration must leave alone.
 */
async function seedOldKeys(db: Queryable) {
  const rita = randomUUID();
  const other = randomUUID();
  await db.execute(sql`INSERT INTO organizations (id, name) VALUES (${rita}, 'Rita'), (${other}, 'Other')`);
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
  const firstCard = await piece("40 Mill Creek Rd, 62704", OLD);
  const secondCard = await piece("40 Mill Creek Road, IL 62704", "40 MILL CRK, ROAD IL 62704");
  // Keyed after the fix: the same home, under the new key already.
  const laterCard = await piece("40 Mill Creek Rd IL 62704", NEW);
  // A town named like a street type, and an ordinary address: candidates or not, they stay.
  await piece("12 Oak St Center TX 75935", "12 OAK ST, CENTER TX 75935");
  await piece("5 Elm St, Springfield, IL 62704", "5 ELM ST, SPRINGFIELD IL 62704");
  // A key in the old shape whose text reads otherwise now (an older parser's key): left as it is.
  await piece("40 Mill Creek, Rd IL 62704", OLD);

  await db.execute(
    sql`INSERT INTO leads (org_id, id, source, full_address, normalized_address)
        VALUES (${rita}::uuid, ${randomUUID()}::uuid, 'crm_sync', '77 Lake Shore Drive, 62704', '77 LAKE SHR, DRIVE IL 62704'),
               (${rita}::uuid, ${randomUUID()}::uuid, 'crm_sync', '9 Birch Ln, Springfield, IL', '9 BIRCH LN, SPRINGFIELD IL')`,
  );
  await db.execute(
    sql`INSERT INTO conversions (org_id, id, idempotency_key, address, normalized_address, campaign_id,
          match_method, match_confidence, attribution_type, created_at)
        VALUES (${rita}::uuid, ${randomUUID()}::uuid, 'address:' || ${OLD} || '|2026-06-15', '40 mill creek rd., 62704',
                ${OLD}, ${campaign}::uuid, 'address', 'medium', 'indirect', '2026-06-15T09:00:00Z'),
               -- The same deal sent again later in another spelling: its key is the first's now, which keeps it.
               (${rita}::uuid, ${randomUUID()}::uuid, 'address:40 MILL CRK, ROAD IL 62704|2026-06-15',
                '40 Mill Creek Road, IL 62704', '40 MILL CRK, ROAD IL 62704', ${campaign}::uuid, 'address', 'medium',
                'indirect', '2026-06-15T10:00:00Z'),
               (${rita}::uuid, ${randomUUID()}::uuid, 'deal:D-7', '40 Mill Creek Rd, 62704', ${OLD}, ${campaign}::uuid,
                'address', 'medium', 'indirect', '2026-06-16T10:00:00Z')`,
  );
  // A deal at a held-out home: no address stored, its home a customer.
  await db.execute(
    sql`INSERT INTO holdout_conversions (org_id, idempotency_key, automation_id, piece_id, deal_date)
        VALUES (${rita}::uuid, 'address:' || ${OLD} || '|2026-06-20', ${randomUUID()}::uuid, ${firstCard}::uuid,
                '2026-06-20T00:00:00Z')`,
  );
  const batch = randomUUID();
  await db.execute(
    sql`INSERT INTO imports (org_id, id, source, status, staged) VALUES (${rita}::uuid, ${batch}::uuid, 'jobs', 'staged', 1)`,
  );
  await db.execute(
    sql`INSERT INTO import_rows (org_id, import_id, row_index, address, normalized_address)
        VALUES (${rita}::uuid, ${batch}::uuid, 0, '41 Mill Creek Rd, IL 62704', '41 MILL CRK, RD IL 62704')`,
  );
  // Rita registered the home in the old form first, then again after the fix (with notes); Other once.
  await db.execute(
    sql`INSERT INTO customers (org_id, normalized_address, address, notes, source, created_at)
        VALUES (${rita}::uuid, ${OLD}, '40 Mill Creek Rd, 62704', NULL, 'webhook', '2026-01-01T00:00:00Z'),
               (${rita}::uuid, ${NEW}, '40 Mill Creek Rd IL 62704', 'gate code 12', 'app', '2026-02-01T00:00:00Z'),
               (${other}::uuid, ${OLD}, '40 Mill Creek Rd, 62704', NULL, 'app', '2026-03-01T00:00:00Z')`,
  );
  // The home opted out from two cards, before and after the fix.
  await db.execute(
    sql`INSERT INTO do_not_mail (org_id, normalized_address, reason, piece_id, created_at)
        VALUES (${rita}::uuid, ${OLD}, 'opted_out', ${firstCard}::uuid, '2026-05-10T00:00:00Z'),
               (${rita}::uuid, '40 MILL CRK, ROAD IL 62704', 'opted_out', ${secondCard}::uuid, '2026-05-11T00:00:00Z'),
               (${rita}::uuid, ${NEW}, 'opted_out', ${laterCard}::uuid, '2026-06-01T00:00:00Z')`,
  );
  // Reference homes: one in the old form only, one loaded in both forms, and another street.
  await db.execute(
    sql`INSERT INTO reference_addresses (normalized_address, street, city, state, zip, latitude, longitude)
        VALUES ('41 MILL CRK, RD IL 62704', '41 Mill Creek Rd', '', 'IL', '62704', 39.7, -89.6),
               (${OLD}, '40 Mill Creek Rd', '', 'IL', '62704', 39.7, -89.6),
               (${NEW}, '40 Mill Creek Road', '', 'IL', '62704', 39.7, -89.6),
               ('5 ELM ST, SPRINGFIELD IL 62704', '5 Elm St', 'Springfield', 'IL', '62704', 39.7, -89.6)`,
  );
  await db.execute(sql`INSERT INTO reference_address_zips (zip, homes) VALUES ('62704', 4)`);
  await db.execute(
    sql`INSERT INTO neighbour_campaigns (org_id, campaign_id, job_street, job_city, latitude, longitude, count, radius_m, home_key)
        VALUES (${rita}::uuid, ${randomUUID()}::uuid, '41 Mill Creek Rd', '', 39.7, -89.6, 10, 400, '41 MILL CRK, RD IL 62704')`,
  );
}

describe(`migration 0410 re-keying addresses whose street type was read as the town (${databaseLabel})`, () => {
  it("re-keys the old form in every table, keeps one row where the new key was taken, and leaves other keys", async () => {
    const { database, drop } = await openBeforeRekey();
    const db = database.db;
    try {
      await seedOldKeys(db);
      assert.deepEqual(await migrateThroughRekey(db), [REKEY_MIGRATION]);
      assert.deepEqual(await storedKeys(db), {
        pieces: [
          `12 Oak St Center TX 75935 → 12 OAK ST, CENTER TX 75935`,
          `40 Mill Creek Rd IL 62704 → ${NEW}`,
          `40 Mill Creek Rd, 62704 → ${NEW}`,
          `40 Mill Creek Road, IL 62704 → ${NEW}`,
          `40 Mill Creek, Rd IL 62704 → ${OLD}`,
          `5 Elm St, Springfield, IL 62704 → 5 ELM ST, SPRINGFIELD IL 62704`,
        ],
        leads: [
          "77 Lake Shore Drive, 62704 → 77 LAKE SHORE DR, IL 62704",
          "9 Birch Ln, Springfield, IL → 9 BIRCH LN, SPRINGFIELD IL",
        ],
        conversions: [
          `40 Mill Creek Rd, 62704 → ${NEW} (deal:D-7)`,
          `40 Mill Creek Road, IL 62704 → ${NEW} (address:40 MILL CRK, ROAD IL 62704|2026-06-15)`,
          `40 mill creek rd., 62704 → ${NEW} (address:${NEW}|2026-06-15)`,
        ],
        heldOutDeals: [`address:${NEW}|2026-06-20`],
        importRows: ["41 Mill Creek Rd, IL 62704 → 41 MILL CREEK RD, IL 62704"],
        customers: [
          // One customer: the first registration's address, source and date, the later one's notes.
          `Other: ${NEW} (40 Mill Creek Rd, 62704, app, -, 2026-03-01)`,
          `Rita: ${NEW} (40 Mill Creek Rd, 62704, webhook, gate code 12, 2026-01-01)`,
        ],
        // One opt-out: the earliest.
        doNotMail: [`${NEW} (40 Mill Creek Rd, 62704, 2026-05-10)`],
        reference: [
          `${NEW} (40 Mill Creek Road)`,
          "41 MILL CREEK RD, IL 62704 (41 Mill Creek Rd)",
          "5 ELM ST, SPRINGFIELD IL 62704 (5 Elm St)",
        ],
        homesOfZip: ["62704: 3"],
        neighbourHomes: ["41 MILL CREEK RD, IL 62704"],
      });
      // What the service computes today for those texts is what is stored now.
      assert.equal(normalizeAddress("40 Mill Creek Rd, 62704"), NEW);

      const after = await storedKeys(db);
      assert.deepEqual(await migrateThroughRekey(db), [], "a second run applies nothing");
      assert.deepEqual(await storedKeys(db), after);
    } finally {
      await drop();
    }
  });

  itChangesNothingWithoutSuchKeys();

  itAppliesOnceWhenTwoProcessesMigrate(seedOldKeys, { customers: 2, doNotMail: 1 });
});
