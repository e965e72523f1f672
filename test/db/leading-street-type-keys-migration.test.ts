import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { type Queryable, sql } from "../../src/db/database.ts";
import { normalizeAddress } from "../../src/domain/address.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { rekeyingMigration } from "../helpers/rekeying-migration.ts";
import { storedKeys } from "../helpers/stored-address-keys.ts";

const REKEY_MIGRATION = "0430_leading_street_type_keys";
const {
  openBeforeRekey,
  migrateThroughRekey,
  itChangesNothingWithoutSuchKeys,
  itAppliesOnceWhenTwoProcessesMigrate,
} = rekeyingMigration(REKEY_MIGRATION);

/** "2 Ave of the Americas, New York NY 10036" as keyed before (the type abbreviated), and now. */
const OLD = "2 AVE OF THE AMERICAS, NEW YORK NY 10036";
const NEW = "2 AVENUE OF THE AMERICAS, NEW YORK NY 10036";
/** "2 Ave of the Americas, NY 10036" before (the rest of the name read as the town), and now. */
const OLD_AS_TOWN = "2 AVE, OF THE AMERICAS NY 10036";
const NEW_WITHOUT_TOWN = "2 AVENUE OF THE AMERICAS, NY 10036";

async function storedKeysSorted(db: Queryable) {
  const keys = await storedKeys(db);
  return { ...keys, pieces: keys.pieces.sort() };
}

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
  const card = await piece("2 Ave of the Americas, New York NY 10036", OLD);
  await piece("2 Ave of the Americas, NY 10036", OLD_AS_TOWN);
  await piece("2 Avenue of the Americas, New York, NY 10036", NEW);
  await piece("2 Ave of the Americas, Apt 4", "2 AVE OF THE AMERICAS #4");
  await piece("100 Ave A NY 10009", "100 AVE, A NY 10009");
  await piece("100 Avenue A, NY 10009", "100 AVENUE, A NY 10009");
  await piece("100 N Av B, New York, NY 10009", "100 N AV B, NEW YORK NY 10009");
  await piece("5 Via Lido, CA 92663", "5 VIA, LIDO CA 92663");
  await piece("100 Hwy 61, Hibbing, MN 55746", "100 HWY 61, HIBBING MN 55746");
  // Candidates whose text keys the same today, and an ordinary address: they stay.
  await piece("100 St Charles Ave, New Orleans, LA 70130", "100 ST CHARLES AVE, NEW ORLEANS LA 70130");
  await piece("12 Park, Springfield, IL 62704", "12 PARK, SPRINGFIELD IL 62704");
  await piece("5 Elm St, Springfield, IL 62704", "5 ELM ST, SPRINGFIELD IL 62704");
  // An old-shaped key whose text now keys as another place (an older parser's key): left.
  await piece("2 Ave of the Americas, Newark, NJ 07102", "2 AVE OF THE AMERICAS, NY 10036");

  await db.execute(
    sql`INSERT INTO leads (org_id, id, source, full_address, normalized_address)
        VALUES (${rita}::uuid, ${randomUUID()}::uuid, 'crm_sync', '300 Blvd of the Allies, PA 15222',
                '300 BLVD, OF THE ALLIES PA 15222')`,
  );
  await db.execute(
    sql`INSERT INTO conversions (org_id, id, idempotency_key, address, normalized_address, campaign_id,
          match_method, match_confidence, attribution_type, created_at)
        VALUES (${rita}::uuid, ${randomUUID()}::uuid, 'address:' || ${OLD_AS_TOWN} || '|2026-06-15',
                '2 Ave of the Americas, NY 10036', ${OLD_AS_TOWN}, ${campaign}::uuid, 'address', 'medium',
                'indirect', '2026-06-15T09:00:00Z')`,
  );
  const batch = randomUUID();
  await db.execute(
    sql`INSERT INTO imports (org_id, id, source, status, staged) VALUES (${rita}::uuid, ${batch}::uuid, 'jobs', 'staged', 1)`,
  );
  await db.execute(
    sql`INSERT INTO import_rows (org_id, import_id, row_index, address, normalized_address)
        VALUES (${rita}::uuid, ${batch}::uuid, 0, '100 Mt Vernon St, Boston, MA 02108', '100 MT VERNON ST, BOSTON MA 02108')`,
  );
  // Registered in the abbreviated form first, then in full (with notes): one customer now.
  await db.execute(
    sql`INSERT INTO customers (org_id, normalized_address, address, notes, source, created_at)
        VALUES (${rita}::uuid, ${OLD}, '2 Ave of the Americas, New York NY 10036', NULL, 'webhook', '2026-01-01T00:00:00Z'),
               (${rita}::uuid, ${NEW}, '2 Avenue of the Americas, New York, NY 10036', 'lobby', 'app', '2026-02-01T00:00:00Z')`,
  );
  await db.execute(
    sql`INSERT INTO do_not_mail (org_id, normalized_address, reason, piece_id, created_at)
        VALUES (${rita}::uuid, ${OLD}, 'opted_out', ${card}::uuid, '2026-05-10T00:00:00Z')`,
  );
  await db.execute(
    sql`INSERT INTO reference_addresses (normalized_address, street, city, state, zip, latitude, longitude)
        VALUES ('300 BLVD OF THE ALLIES, PITTSBURGH PA 15222', '300 Blvd of the Allies', 'Pittsburgh', 'PA', '15222', 40.44, -80.0)`,
  );
  await db.execute(sql`INSERT INTO reference_address_zips (zip, homes) VALUES ('15222', 1)`);
  await db.execute(
    sql`INSERT INTO neighbour_campaigns (org_id, campaign_id, job_street, job_city, latitude, longitude, count, radius_m, home_key)
        VALUES (${rita}::uuid, ${randomUUID()}::uuid, '300 Blvd of the Allies', 'Pittsburgh', 40.44, -80.0, 10, 400,
                '300 BLVD OF THE ALLIES, PITTSBURGH PA 15222')`,
  );
}

describe(`migration 0430 re-keying addresses whose street opens with a street type (${databaseLabel})`, () => {
  it("re-keys each old form in every table, keeps one row where the new key was taken, and leaves other keys", async () => {
    const { database, drop } = await openBeforeRekey();
    const db = database.db;
    try {
      await seedOldKeys(db);
      assert.deepEqual(await migrateThroughRekey(db), [REKEY_MIGRATION]);
      // Sorted here: "NY" and "New York" sort apart under the databases' collations.
      assert.deepEqual(await storedKeysSorted(db), {
        pieces: [
          "100 Ave A NY 10009 → 100 AVENUE A, NY 10009",
          "100 Avenue A, NY 10009 → 100 AVENUE A, NY 10009",
          "100 Hwy 61, Hibbing, MN 55746 → 100 HIGHWAY 61, HIBBING MN 55746",
          "100 N Av B, New York, NY 10009 → 100 N AVENUE B, NEW YORK NY 10009",
          "100 St Charles Ave, New Orleans, LA 70130 → 100 ST CHARLES AVE, NEW ORLEANS LA 70130",
          "12 Park, Springfield, IL 62704 → 12 PARK, SPRINGFIELD IL 62704",
          "2 Ave of the Americas, Apt 4 → 2 AVENUE OF THE AMERICAS #4",
          `2 Ave of the Americas, NY 10036 → ${NEW_WITHOUT_TOWN}`,
          "2 Ave of the Americas, New York NY 10036 → 2 AVENUE OF THE AMERICAS, NEW YORK NY 10036",
          "2 Ave of the Americas, Newark, NJ 07102 → 2 AVE OF THE AMERICAS, NY 10036",
          `2 Avenue of the Americas, New York, NY 10036 → ${NEW}`,
          "5 Elm St, Springfield, IL 62704 → 5 ELM ST, SPRINGFIELD IL 62704",
          "5 Via Lido, CA 92663 → 5 VIA LIDO, CA 92663",
        ],
        leads: ["300 Blvd of the Allies, PA 15222 → 300 BOULEVARD OF THE ALLIES, PA 15222"],
        conversions: [
          `2 Ave of the Americas, NY 10036 → ${NEW_WITHOUT_TOWN} (address:${NEW_WITHOUT_TOWN}|2026-06-15)`,
        ],
        heldOutDeals: [],
        importRows: ["100 Mt Vernon St, Boston, MA 02108 → 100 MOUNT VERNON ST, BOSTON MA 02108"],
        customers: [`Rita: ${NEW} (2 Ave of the Americas, New York NY 10036, webhook, lobby, 2026-01-01)`],
        doNotMail: [`${NEW} (2 Ave of the Americas, New York NY 10036, 2026-05-10)`],
        reference: ["300 BOULEVARD OF THE ALLIES, PITTSBURGH PA 15222 (300 Blvd of the Allies)"],
        homesOfZip: ["15222: 1"],
        neighbourHomes: ["300 BOULEVARD OF THE ALLIES, PITTSBURGH PA 15222"],
      });
      // What the service computes today for those texts is what is stored now.
      assert.equal(normalizeAddress("2 Ave of the Americas, NY 10036"), NEW_WITHOUT_TOWN);
      assert.equal(normalizeAddress("2 Ave of the Americas, New York NY 10036"), NEW);

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
