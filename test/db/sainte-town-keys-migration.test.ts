import { describe } from "node:test";
import type { Queryable } from "../../src/db/database.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { oldKeyedRows } from "../helpers/old-keyed-rows.ts";
import { rekeyingMigration } from "../helpers/rekeying-migration.ts";

const REKEY_MIGRATION = "0490_sainte_town_keys";
const { itRekeysEveryTable, itChangesNothingWithoutSuchKeys, itAppliesOnceWhenTwoProcessesMigrate } =
  rekeyingMigration(REKEY_MIGRATION);

/** "7 Elm Ave, Ste. Genevieve, MO 63670" as keyed before ("Ste" read as a suite), and now. */
const OLD = "7 ELM AVE #GENEVIEVE, MO 63670";
const NEW = "7 ELM AVE, SAINTE GENEVIEVE MO 63670";
const NEW_NO_ZIP = "7 ELM AVE, SAINTE GENEVIEVE MO";

/** Rows as the service stored them before the fix, written in SQL (today's code keys them anew). */
async function seedOldKeys(db: Queryable) {
  const rows = await oldKeyedRows(db);
  const card = await rows.piece("7 Elm Ave, Ste. Genevieve, MO 63670", OLD);
  await rows.piece("7 Elm Ave Ste Genevieve MO", "7 ELM AVE #GENEVIEV, E MO");
  await rows.piece("7 Elm Ave, Ste Marie, IL 62459", "7 ELM AVE #MARIE, IL 62459");
  // Candidates that key the same today (a lettered suite, a suite no town of the state names), and
  // an ordinary address: they stay.
  await rows.piece("12 Main St Ste B, Springfield, IL 62701", "12 MAIN ST #B, SPRINGFIELD IL 62701");
  await rows.piece("12 Main St, Rear, Springfield, IL 62701", "12 MAIN ST #REAR, SPRINGFIELD IL 62701");
  await rows.piece("12 Main St Ste Genevieve, IL 62701", "12 MAIN ST #GENEVIEVE, IL 62701");
  await rows.piece("5 Elm Rd, Springfield, IL 62704", "5 ELM RD, SPRINGFIELD IL 62704");

  await rows.leads(["7 Elm Ave Ste Genevieve MO 63670", OLD]);
  await rows.conversions({ address: "7 Elm Ave, Ste. Genevieve, MO 63670", normalizedAddress: OLD });
  await rows.importRows(["7 Elm Ave Ste Genevieve MO", "7 ELM AVE #GENEVIEV, E MO"]);
  // Registered in the old form first, then again after the fix (with notes): one customer now.
  await rows.customers(
    {
      normalizedAddress: OLD,
      address: "7 Elm Ave, Ste. Genevieve, MO 63670",
      source: "webhook",
      createdAt: "2026-01-01T00:00:00Z",
    },
    {
      normalizedAddress: NEW,
      address: "7 Elm Ave, Sainte Genevieve, MO 63670",
      notes: "side door",
      source: "app",
      createdAt: "2026-02-01T00:00:00Z",
    },
  );
  await rows.doNotMail({ normalizedAddress: OLD, pieceId: card, createdAt: "2026-05-10T00:00:00Z" });
  const home = {
    normalizedAddress: "40 OAK ST #GENEVIEVE, MO 63670",
    street: "40 Oak St",
    city: "Ste. Genevieve",
    state: "MO",
    zip: "63670",
    latitude: 37.98,
    longitude: -90.04,
  };
  await rows.referenceHomes([home], { "63670": 1 });
  await rows.neighbourCampaign(home);
}

describe(`migration 0490 re-keying towns opening with Ste, once read as a suite (${databaseLabel})`, () => {
  itRekeysEveryTable(
    seedOldKeys,
    {
      pieces: [
        `7 Elm Ave, Ste. Genevieve, MO 63670 → ${NEW}`,
        `7 Elm Ave Ste Genevieve MO → ${NEW_NO_ZIP}`,
        "7 Elm Ave, Ste Marie, IL 62459 → 7 ELM AVE, SAINTE MARIE IL 62459",
        "12 Main St Ste B, Springfield, IL 62701 → 12 MAIN ST #B, SPRINGFIELD IL 62701",
        "12 Main St, Rear, Springfield, IL 62701 → 12 MAIN ST #REAR, SPRINGFIELD IL 62701",
        "12 Main St Ste Genevieve, IL 62701 → 12 MAIN ST #GENEVIEVE, IL 62701",
        "5 Elm Rd, Springfield, IL 62704 → 5 ELM RD, SPRINGFIELD IL 62704",
      ].sort(),
      leads: [`7 Elm Ave Ste Genevieve MO 63670 → ${NEW}`],
      conversions: [`7 Elm Ave, Ste. Genevieve, MO 63670 → ${NEW} (address:${NEW}|2026-06-15)`],
      heldOutDeals: [],
      importRows: [`7 Elm Ave Ste Genevieve MO → ${NEW_NO_ZIP}`],
      customers: [`Rita: ${NEW} (7 Elm Ave, Ste. Genevieve, MO 63670, webhook, side door, 2026-01-01)`],
      doNotMail: [`${NEW} (7 Elm Ave, Ste. Genevieve, MO 63670, 2026-05-10)`],
      reference: ["40 OAK ST, SAINTE GENEVIEVE MO 63670 (40 Oak St)"],
      homesOfZip: ["63670: 1"],
      neighbourHomes: ["40 OAK ST, SAINTE GENEVIEVE MO 63670"],
    },
    {
      "7 Elm Ave Ste Genevieve MO": NEW_NO_ZIP,
    },
  );

  itChangesNothingWithoutSuchKeys();

  itAppliesOnceWhenTwoProcessesMigrate(seedOldKeys, { customers: 1, doNotMail: 1 });
});
