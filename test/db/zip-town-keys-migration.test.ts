import { describe } from "node:test";
import type { Queryable } from "../../src/db/database.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { oldKeyedRows } from "../helpers/old-keyed-rows.ts";
import { rekeyingMigration } from "../helpers/rekeying-migration.ts";

const REKEY_MIGRATION = "0530_zip_town_keys";
const { itRekeysEveryTable, itChangesNothingWithoutSuchKeys, itAppliesOnceWhenTwoProcessesMigrate } =
  rekeyingMigration(REKEY_MIGRATION);

/** A home in McLean keyed before (the town as written), and now (the ZIP table's MC LEAN). */
const OLD = "1 CHAIN BRIDGE RD, MCLEAN VA 22101";
const NEW = "1 CHAIN BRIDGE RD, MC LEAN VA 22101";
const SALEM = { written: "40 Oak St, Winston-Salem, NC 27101", old: "40 OAK ST, WINSTON-SALEM NC 27101" };

/** Rows as the service stored them before the fix, written in SQL (today's code keys them anew). */
async function seedOldKeys(db: Queryable) {
  const rows = await oldKeyedRows(db);
  const card = await rows.piece("1 Chain Bridge Rd, McLean, VA 22101", OLD);
  // A town spelled otherwise than the ZIP table, with or without its ZIP: the table's spelling.
  await rows.piece("12 Main St, Winston-Salem, NC", "12 MAIN ST, WINSTON-SALEM NC");
  // The table's spelling already, a neighbourhood or borough (kept: `sameHome` reads them by the
  // ZIP), no town, a state not the ZIP's, a ZIP the table does not know: they stay.
  await rows.piece("1 Chain Bridge Rd, Mc Lean, VA 22101", NEW);
  await rows.piece("6801 Hollywood Blvd, Hollywood, CA 90028", "6801 HOLLYWOOD BLVD, HOLLYWOOD CA 90028");
  await rows.piece("500 Court St, New York, NY 11231", "500 COURT ST, NEW YORK NY 11231");
  await rows.piece("7 Pine Rd, CA 90028", "7 PINE RD, CA 90028");
  await rows.piece("12 Main St, Springfield, MO 62704", "12 MAIN ST, SPRINGFIELD MO 62704");
  await rows.piece("1 Main St, Nowhere, ZZ 00000", "1 MAIN ST, NOWHERE ZZ 00000");

  await rows.leads(["12 Main St, Winston-Salem NC 27101", "12 MAIN ST, WINSTON-SALEM NC 27101"]);
  await rows.conversions({ address: "1 Chain Bridge Rd, McLean, VA 22101", normalizedAddress: OLD });
  await rows.importRows([SALEM.written, SALEM.old]);
  // Registered in the old form first, then again under the new key (with notes): one customer now.
  await rows.customers(
    {
      normalizedAddress: OLD,
      address: "1 Chain Bridge Rd, McLean, VA 22101",
      source: "webhook",
      createdAt: "2026-01-01T00:00:00Z",
    },
    {
      normalizedAddress: NEW,
      address: "1 Chain Bridge Rd, Mc Lean, VA 22101",
      notes: "side door",
      source: "app",
      createdAt: "2026-02-01T00:00:00Z",
    },
  );
  await rows.doNotMail({ normalizedAddress: OLD, pieceId: card, createdAt: "2026-05-10T00:00:00Z" });
  const home = {
    normalizedAddress: SALEM.old,
    street: "40 Oak St",
    city: "Winston-Salem",
    state: "NC",
    zip: "27101",
    latitude: 36.1,
    longitude: -80.24,
  };
  await rows.referenceHomes([home], { "27101": 1 });
  await rows.neighbourCampaign(home);
}

describe(`migration 0530 re-keying towns to the ZIP table's spelling (${databaseLabel})`, () => {
  itRekeysEveryTable(
    seedOldKeys,
    {
      pieces: [
        `1 Chain Bridge Rd, McLean, VA 22101 → ${NEW}`,
        "12 Main St, Winston-Salem, NC → 12 MAIN ST, WINSTON SALEM NC",
        `1 Chain Bridge Rd, Mc Lean, VA 22101 → ${NEW}`,
        "6801 Hollywood Blvd, Hollywood, CA 90028 → 6801 HOLLYWOOD BLVD, HOLLYWOOD CA 90028",
        "500 Court St, New York, NY 11231 → 500 COURT ST, NEW YORK NY 11231",
        "7 Pine Rd, CA 90028 → 7 PINE RD, CA 90028",
        "12 Main St, Springfield, MO 62704 → 12 MAIN ST, SPRINGFIELD MO 62704",
        "1 Main St, Nowhere, ZZ 00000 → 1 MAIN ST, NOWHERE ZZ 00000",
      ].sort(),
      leads: ["12 Main St, Winston-Salem NC 27101 → 12 MAIN ST, WINSTON SALEM NC 27101"],
      conversions: [`1 Chain Bridge Rd, McLean, VA 22101 → ${NEW} (address:${NEW}|2026-06-15)`],
      heldOutDeals: [],
      importRows: [`${SALEM.written} → 40 OAK ST, WINSTON SALEM NC 27101`],
      customers: [`Rita: ${NEW} (1 Chain Bridge Rd, McLean, VA 22101, webhook, side door, 2026-01-01)`],
      doNotMail: [`${NEW} (1 Chain Bridge Rd, McLean, VA 22101, 2026-05-10)`],
      reference: ["40 OAK ST, WINSTON SALEM NC 27101 (40 Oak St)"],
      homesOfZip: ["27101: 1"],
      neighbourHomes: ["40 OAK ST, WINSTON SALEM NC 27101"],
    },
    {
      "1 Chain Bridge Rd, McLean, VA 22101": NEW,
      "1 Chain Bridge Rd, Mc Lean, VA 22101": NEW,
      "6801 Hollywood Blvd, Hollywood, CA 90028": "6801 HOLLYWOOD BLVD, HOLLYWOOD CA 90028",
      "12 Main St, Winston-Salem, NC": "12 MAIN ST, WINSTON SALEM NC",
      [SALEM.written]: "40 OAK ST, WINSTON SALEM NC 27101",
    },
  );

  itChangesNothingWithoutSuchKeys();

  itAppliesOnceWhenTwoProcessesMigrate(seedOldKeys, { customers: 1, doNotMail: 1 });
});
