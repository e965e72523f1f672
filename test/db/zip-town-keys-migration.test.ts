import { describe } from "node:test";
import type { Queryable } from "../../src/db/database.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { oldKeyedRows } from "../helpers/old-keyed-rows.ts";
import { rekeyingMigration } from "../helpers/rekeying-migration.ts";

const REKEY_MIGRATION = "0530_zip_town_keys";
const { itRekeysEveryTable, itChangesNothingWithoutSuchKeys, itAppliesOnceWhenTwoProcessesMigrate } =
  rekeyingMigration(REKEY_MIGRATION);

/** A home in Hollywood keyed before (its neighbourhood as written), and now (90028's town). */
const OLD = "6801 HOLLYWOOD BLVD, HOLLYWOOD CA 90028";
const NEW = "6801 HOLLYWOOD BLVD, LOS ANGELES CA 90028";

/** Rows as the service stored them before the fix, written in SQL (today's code keys them anew). */
async function seedOldKeys(db: Queryable) {
  const rows = await oldKeyedRows(db);
  const card = await rows.piece("6801 Hollywood Blvd, Hollywood, CA 90028", OLD);
  await rows.piece("500 Court St, New York, NY 11231", "500 COURT ST, NEW YORK NY 11231");
  await rows.piece("100 Main St, South Boston, MA 02127", "100 MAIN ST, SOUTH BOSTON MA 02127");
  // A town spelled otherwise than the ZIP table, with or without its ZIP: the table's spelling.
  await rows.piece("12 Main St, Winston-Salem, NC", "12 MAIN ST, WINSTON-SALEM NC");
  await rows.piece("1 Chain Bridge Rd, McLean, VA 22101", "1 CHAIN BRIDGE RD, MCLEAN VA 22101");
  // Already the ZIP's town, no town, no ZIP, a state not the ZIP's, a ZIP the table does not know: they stay.
  await rows.piece("6801 Hollywood Blvd, Los Angeles, CA 90028", NEW);
  await rows.piece("7 Pine Rd, CA 90028", "7 PINE RD, CA 90028");
  await rows.piece("6801 Hollywood Blvd, Hollywood, CA", "6801 HOLLYWOOD BLVD, HOLLYWOOD CA");
  await rows.piece("12 Main St, Springfield, MO 62704", "12 MAIN ST, SPRINGFIELD MO 62704");
  await rows.piece("1 Main St, Nowhere, ZZ 00000", "1 MAIN ST, NOWHERE ZZ 00000");

  await rows.leads(["500 Court St, Brooklyn NY 11231", "500 COURT ST, NEW YORK NY 11231"]);
  await rows.conversions({ address: "6801 Hollywood Blvd, Hollywood, CA 90028", normalizedAddress: OLD });
  await rows.importRows(["100 Main St, South Boston, MA 02127", "100 MAIN ST, SOUTH BOSTON MA 02127"]);
  // Registered in the old form first, then again under the new key (with notes): one customer now.
  await rows.customers(
    {
      normalizedAddress: OLD,
      address: "6801 Hollywood Blvd, Hollywood, CA 90028",
      source: "webhook",
      createdAt: "2026-01-01T00:00:00Z",
    },
    {
      normalizedAddress: NEW,
      address: "6801 Hollywood Blvd, Los Angeles, CA 90028",
      notes: "side door",
      source: "app",
      createdAt: "2026-02-01T00:00:00Z",
    },
  );
  await rows.doNotMail({ normalizedAddress: OLD, pieceId: card, createdAt: "2026-05-10T00:00:00Z" });
  const home = {
    normalizedAddress: "40 OAK ST, SOUTH BOSTON MA 02127",
    street: "40 Oak St",
    city: "South Boston",
    state: "MA",
    zip: "02127",
    latitude: 42.33,
    longitude: -71.05,
  };
  await rows.referenceHomes([home], { "02127": 1 });
  await rows.neighbourCampaign(home);
}

describe(`migration 0530 re-keying towns to their ZIP's, or to the ZIP table's spelling (${databaseLabel})`, () => {
  itRekeysEveryTable(
    seedOldKeys,
    {
      pieces: [
        `6801 Hollywood Blvd, Hollywood, CA 90028 → ${NEW}`,
        "500 Court St, New York, NY 11231 → 500 COURT ST, BROOKLYN NY 11231",
        "100 Main St, South Boston, MA 02127 → 100 MAIN ST, BOSTON MA 02127",
        "12 Main St, Winston-Salem, NC → 12 MAIN ST, WINSTON SALEM NC",
        "1 Chain Bridge Rd, McLean, VA 22101 → 1 CHAIN BRIDGE RD, MC LEAN VA 22101",
        `6801 Hollywood Blvd, Los Angeles, CA 90028 → ${NEW}`,
        "7 Pine Rd, CA 90028 → 7 PINE RD, CA 90028",
        "6801 Hollywood Blvd, Hollywood, CA → 6801 HOLLYWOOD BLVD, HOLLYWOOD CA",
        "12 Main St, Springfield, MO 62704 → 12 MAIN ST, SPRINGFIELD MO 62704",
        "1 Main St, Nowhere, ZZ 00000 → 1 MAIN ST, NOWHERE ZZ 00000",
      ].sort(),
      leads: ["500 Court St, Brooklyn NY 11231 → 500 COURT ST, BROOKLYN NY 11231"],
      conversions: [`6801 Hollywood Blvd, Hollywood, CA 90028 → ${NEW} (address:${NEW}|2026-06-15)`],
      heldOutDeals: [],
      importRows: ["100 Main St, South Boston, MA 02127 → 100 MAIN ST, BOSTON MA 02127"],
      customers: [`Rita: ${NEW} (6801 Hollywood Blvd, Hollywood, CA 90028, webhook, side door, 2026-01-01)`],
      doNotMail: [`${NEW} (6801 Hollywood Blvd, Hollywood, CA 90028, 2026-05-10)`],
      reference: ["40 OAK ST, BOSTON MA 02127 (40 Oak St)"],
      homesOfZip: ["02127: 1"],
      neighbourHomes: ["40 OAK ST, BOSTON MA 02127"],
    },
    {
      "6801 Hollywood Blvd, Hollywood, CA 90028": NEW,
      "6801 Hollywood Blvd, Los Angeles, CA 90028": NEW,
      "500 Court St, New York, NY 11231": "500 COURT ST, BROOKLYN NY 11231",
      "12 Main St, Winston-Salem, NC": "12 MAIN ST, WINSTON SALEM NC",
      "1 Chain Bridge Rd, McLean, VA 22101": "1 CHAIN BRIDGE RD, MC LEAN VA 22101",
    },
  );

  itChangesNothingWithoutSuchKeys();

  itAppliesOnceWhenTwoProcessesMigrate(seedOldKeys, { customers: 1, doNotMail: 1 });
});
