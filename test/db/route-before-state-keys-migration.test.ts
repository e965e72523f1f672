import { describe } from "node:test";
import type { Queryable } from "../../src/db/database.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { oldKeyedRows } from "../helpers/old-keyed-rows.ts";
import { rekeyingMigration } from "../helpers/rekeying-migration.ts";

const REKEY_MIGRATION = "0470_route_before_state_keys";
const { itRekeysEveryTable, itChangesNothingWithoutSuchKeys, itAppliesOnceWhenTwoProcessesMigrate } =
  rekeyingMigration(REKEY_MIGRATION);

/** "100 Highway 61 MN" as keyed before (its number and state dropped), and now. */
const OLD = "100 HIGHWAY";
const NEW_61 = "100 HIGHWAY 61, MN";
const NEW_55 = "100 HIGHWAY 55, MN";

/** Rows as the service stored them before the fix, written in SQL (today's code keys them anew). */
async function seedOldKeys(db: Queryable) {
  const rows = await oldKeyedRows(db);
  const card = await rows.piece("100 Highway 61 MN", OLD);
  await rows.piece("100 Highway 55 MN", OLD);
  await rows.piece("100 Hwy 61 MN", "100 HWY");
  await rows.piece("100 Highway 61, Minnesota", "100 HIGHWAY 61, MINNESOTA");
  await rows.piece("100 County Road JJ WI", "100 COUNTY RD, JJ WI");
  await rows.piece("100 Hwy 61 CT", "100 HIGHWAY 61 CT");
  await rows.piece("100 Highway 61 Apt 4 MN", OLD);
  // Candidates whose text keys the same today, and an ordinary address: they stay.
  await rows.piece("100 Highway 61, MN", NEW_61);
  await rows.piece("100 Highway 61", OLD);
  await rows.piece("7 Main St W IL", "7 MAIN ST, W IL");
  await rows.piece("5 Elm Rd, Springfield, IL 62704", "5 ELM RD, SPRINGFIELD IL 62704");
  // An old-shaped key whose text now keys as another place (a town and a ZIP): left.
  await rows.piece("100 Highway 61, St Paul, MN 55101", OLD);

  await rows.leads(["100 US Hwy 1 FL", "100 US HWY"]);
  await rows.conversions({ address: "100 Highway 61 MN", normalizedAddress: OLD });
  await rows.importRows(["100 State Route 9A OH", "100 STATE RTE"]);
  // Registered in the old form first, then again after the fix (with notes): one customer now.
  await rows.customers(
    {
      normalizedAddress: OLD,
      address: "100 Highway 61 MN",
      source: "webhook",
      createdAt: "2026-01-01T00:00:00Z",
    },
    {
      normalizedAddress: NEW_61,
      address: "100 Highway 61, MN",
      notes: "side door",
      source: "app",
      createdAt: "2026-02-01T00:00:00Z",
    },
  );
  await rows.doNotMail({ normalizedAddress: OLD, pieceId: card, createdAt: "2026-05-10T00:00:00Z" });
  const countyRoad = {
    normalizedAddress: "100 COUNTY RD",
    street: "100 County Rd 14",
    city: "",
    state: "IL",
    zip: "",
    latitude: 39.8,
    longitude: -89.6,
  };
  await rows.referenceHomes([countyRoad], { "62704": 1 });
  await rows.neighbourCampaign(countyRoad);
}

describe(`migration 0470 re-keying the roads named by a number before a state alone (${databaseLabel})`, () => {
  itRekeysEveryTable(
    seedOldKeys,
    {
      pieces: [
        `100 Highway 61 MN → ${NEW_61}`,
        `100 Highway 55 MN → ${NEW_55}`,
        `100 Hwy 61 MN → ${NEW_61}`,
        `100 Highway 61, Minnesota → ${NEW_61}`,
        "100 County Road JJ WI → 100 COUNTY ROAD JJ, WI",
        "100 Hwy 61 CT → 100 HIGHWAY 61, CT",
        "100 Highway 61 Apt 4 MN → 100 HIGHWAY 61 #4, MN",
        `100 Highway 61, MN → ${NEW_61}`,
        `100 Highway 61 → ${OLD}`,
        "7 Main St W IL → 7 MAIN ST, W IL",
        "5 Elm Rd, Springfield, IL 62704 → 5 ELM RD, SPRINGFIELD IL 62704",
        `100 Highway 61, St Paul, MN 55101 → ${OLD}`,
      ].sort(),
      leads: ["100 US Hwy 1 FL → 100 US HIGHWAY 1, FL"],
      conversions: [`100 Highway 61 MN → ${NEW_61} (address:${NEW_61}|2026-06-15)`],
      heldOutDeals: [],
      importRows: ["100 State Route 9A OH → 100 STATE ROUTE 9A, OH"],
      customers: [`Rita: ${NEW_61} (100 Highway 61 MN, webhook, side door, 2026-01-01)`],
      doNotMail: [`${NEW_61} (100 Highway 61 MN, 2026-05-10)`],
      reference: ["100 COUNTY ROAD 14, IL (100 County Rd 14)"],
      homesOfZip: ["62704: 1"],
      neighbourHomes: ["100 COUNTY ROAD 14, IL"],
    },
    {
      "100 Highway 61 MN": NEW_61,
      "100 Highway 55 MN": NEW_55,
    },
  );

  itChangesNothingWithoutSuchKeys();

  itAppliesOnceWhenTwoProcessesMigrate(seedOldKeys, { customers: 1, doNotMail: 1 });
});
