import { describe } from "node:test";
import type { Queryable } from "../../src/db/database.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { oldKeyedRows } from "../helpers/old-keyed-rows.ts";
import { rekeyingMigration } from "../helpers/rekeying-migration.ts";

const REKEY_MIGRATION = "0480_spelled_out_town_keys";
const { itRekeysEveryTable, itChangesNothingWithoutSuchKeys, itAppliesOnceWhenTwoProcessesMigrate } =
  rekeyingMigration(REKEY_MIGRATION);

/** "12 Main St, St Paul, MN 55101" as keyed before (the town as written), and now. */
const OLD = "12 MAIN ST, ST PAUL MN 55101";
const NEW = "12 MAIN ST, SAINT PAUL MN 55101";
const NEW_NO_ZIP = "12 MAIN ST, SAINT PAUL MN";

/** Rows as the service stored them before the fix, written in SQL (today's code keys them anew). */
async function seedOldKeys(db: Queryable) {
  const rows = await oldKeyedRows(db);
  const card = await rows.piece("12 Main St, St Paul, MN 55101", OLD);
  await rows.piece("12 Main St St Paul MN", "12 MAIN ST ST, PAUL MN");
  await rows.piece("9 Elm Ave Ft Worth TX", "9 ELM AVE FT, WORTH TX");
  await rows.piece("12 Main St Mt Vernon NY", "12 MAIN ST MT, VERNON NY");
  await rows.piece("100 Highway 61 St Paul MN", "100 HIGHWAY 61 ST, PAUL MN");
  await rows.piece("3 Elm St, Mt Zion, IL", "3 ELM ST, MT ZION IL");
  // Candidates that key the same today, and an ordinary address: they stay.
  await rows.piece("12 Main St, Saint Paul, MN 55101", NEW);
  await rows.piece("7 Pine Rd, MT 59601", "7 PINE RD, MT 59601");
  await rows.piece("12 Main St Springfield IL", "12 MAIN ST, SPRINGFIELD IL");
  await rows.piece("12 Main St Mt, Vernon NY", "12 MAIN ST MT, VERNON NY");
  await rows.piece("5 Elm Rd, Springfield, IL 62704", "5 ELM RD, SPRINGFIELD IL 62704");
  // An old-shaped key whose text now keys as another place: left.
  await rows.piece("12 Main St St Paul, MN 55102", "12 MAIN ST ST, PAUL MN");

  await rows.leads(["9 Elm Ave, Ft. Worth, TX 76102", "9 ELM AVE, FT WORTH TX 76102"]);
  await rows.conversions({ address: "12 Main St, St Paul, MN 55101", normalizedAddress: OLD });
  await rows.importRows(["12 Main St St Paul MN", "12 MAIN ST ST, PAUL MN"]);
  // Registered in the old form first, then again after the fix (with notes): one customer now.
  await rows.customers(
    {
      normalizedAddress: OLD,
      address: "12 Main St, St Paul, MN 55101",
      source: "webhook",
      createdAt: "2026-01-01T00:00:00Z",
    },
    {
      normalizedAddress: NEW,
      address: "12 Main St, Saint Paul, MN 55101",
      notes: "side door",
      source: "app",
      createdAt: "2026-02-01T00:00:00Z",
    },
  );
  await rows.doNotMail({ normalizedAddress: OLD, pieceId: card, createdAt: "2026-05-10T00:00:00Z" });
  const home = {
    normalizedAddress: "40 OAK ST, ST PAUL MN 55102",
    street: "40 Oak St",
    city: "St Paul",
    state: "MN",
    zip: "55102",
    latitude: 44.9,
    longitude: -93.1,
  };
  await rows.referenceHomes([home], { "55102": 1 });
  await rows.neighbourCampaign(home);
}

describe(`migration 0480 re-keying towns written with an abbreviated first word (${databaseLabel})`, () => {
  itRekeysEveryTable(
    seedOldKeys,
    {
      pieces: [
        `12 Main St, St Paul, MN 55101 → ${NEW}`,
        `12 Main St St Paul MN → ${NEW_NO_ZIP}`,
        "9 Elm Ave Ft Worth TX → 9 ELM AVE, FORT WORTH TX",
        "12 Main St Mt Vernon NY → 12 MAIN ST, MOUNT VERNON NY",
        "100 Highway 61 St Paul MN → 100 HIGHWAY 61, SAINT PAUL MN",
        "3 Elm St, Mt Zion, IL → 3 ELM ST, MOUNT ZION IL",
        `12 Main St, Saint Paul, MN 55101 → ${NEW}`,
        "7 Pine Rd, MT 59601 → 7 PINE RD, MT 59601",
        "12 Main St Springfield IL → 12 MAIN ST, SPRINGFIELD IL",
        "12 Main St Mt, Vernon NY → 12 MAIN ST MT, VERNON NY",
        "5 Elm Rd, Springfield, IL 62704 → 5 ELM RD, SPRINGFIELD IL 62704",
        "12 Main St St Paul, MN 55102 → 12 MAIN ST ST, PAUL MN",
      ].sort(),
      leads: ["9 Elm Ave, Ft. Worth, TX 76102 → 9 ELM AVE, FORT WORTH TX 76102"],
      conversions: [`12 Main St, St Paul, MN 55101 → ${NEW} (address:${NEW}|2026-06-15)`],
      heldOutDeals: [],
      importRows: [`12 Main St St Paul MN → ${NEW_NO_ZIP}`],
      customers: [`Rita: ${NEW} (12 Main St, St Paul, MN 55101, webhook, side door, 2026-01-01)`],
      doNotMail: [`${NEW} (12 Main St, St Paul, MN 55101, 2026-05-10)`],
      reference: ["40 OAK ST, SAINT PAUL MN 55102 (40 Oak St)"],
      homesOfZip: ["55102: 1"],
      neighbourHomes: ["40 OAK ST, SAINT PAUL MN 55102"],
    },
    {
      "12 Main St St Paul MN": NEW_NO_ZIP,
      "12 Main St, St Paul, MN 55101": NEW,
    },
  );

  itChangesNothingWithoutSuchKeys();

  itAppliesOnceWhenTwoProcessesMigrate(seedOldKeys, { customers: 1, doNotMail: 1 });
});
