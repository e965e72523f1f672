import { describe } from "node:test";
import type { Queryable } from "../../src/db/database.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { oldKeyedRows } from "../helpers/old-keyed-rows.ts";
import { rekeyingMigration } from "../helpers/rekeying-migration.ts";

const REKEY_MIGRATION = "0460_route_number_keys";
const { itRekeysEveryTable, itChangesNothingWithoutSuchKeys, itAppliesOnceWhenTwoProcessesMigrate } =
  rekeyingMigration(REKEY_MIGRATION);

/** "100 County Road 12, Springfield, IL 62704" as keyed before (its number dropped), and now. */
const OLD = "100 COUNTY RD, SPRINGFIELD IL 62704";
const NEW_12 = "100 COUNTY ROAD 12, SPRINGFIELD IL 62704";
const NEW_14 = "100 COUNTY ROAD 14, SPRINGFIELD IL 62704";

/** Rows as the service stored them before the fix, written in SQL (today's code keys them anew). */
async function seedOldKeys(db: Queryable) {
  const rows = await oldKeyedRows(db);
  const card = await rows.piece("100 County Road 12, Springfield, IL 62704", OLD);
  await rows.piece("100 County Road 14, Springfield, IL 62704", OLD);
  await rows.piece("100 County Rd 12, Springfield, IL 62704", "100 COUNTY RD 12, SPRINGFIELD IL 62704");
  // Before migration 0440's rule the town went too.
  await rows.piece("100 State Highway 7, Springfield, IL 62704", "100 STATE HWY, IL 62704");
  await rows.piece("100 County Road JJ, Springfield, IL 62704", OLD);
  // Candidates whose text keys the same today, and an ordinary address: they stay.
  await rows.piece("12 Main Street Garage, Springfield, IL", "12 MAIN ST, SPRINGFIELD IL");
  await rows.piece("5 Elm Rd, Springfield, IL 62704", "5 ELM RD, SPRINGFIELD IL 62704");
  await rows.piece("12 Main St Apt 2, Springfield, IL 62704", "12 MAIN ST #2, SPRINGFIELD IL 62704");
  // An old-shaped key whose text now keys as another place (another town): left.
  await rows.piece("100 County Road 12, Chatham, IL 62629", OLD);

  await rows.leads(["100 US Hwy 1, Jupiter, FL 33477", "100 US HWY 1, JUPITER FL 33477"]);
  await rows.conversions({ address: "100 County Road 12, Springfield, IL 62704", normalizedAddress: OLD });
  await rows.importRows(["100 State Route 9A, Albany, NY 12203", "100 STATE RTE, ALBANY NY 12203"]);
  // Registered in the old form first, then again after the fix (with notes): one customer now.
  await rows.customers(
    {
      normalizedAddress: OLD,
      address: "100 County Road 12, Springfield, IL 62704",
      source: "webhook",
      createdAt: "2026-01-01T00:00:00Z",
    },
    {
      normalizedAddress: NEW_12,
      address: "100 County Road 12 Springfield IL 62704",
      notes: "side door",
      source: "app",
      createdAt: "2026-02-01T00:00:00Z",
    },
  );
  await rows.doNotMail({ normalizedAddress: OLD, pieceId: card, createdAt: "2026-05-10T00:00:00Z" });
  const countyRoad = {
    normalizedAddress: "100 COUNTY RD 14, SPRINGFIELD IL 62704",
    street: "100 County Rd 14",
    city: "Springfield",
    state: "IL",
    zip: "62704",
    latitude: 39.8,
    longitude: -89.6,
  };
  await rows.referenceHomes([countyRoad], { "62704": 1 });
  await rows.neighbourCampaign(countyRoad);
}

describe(`migration 0460 re-keying the addresses of roads named by a number (${databaseLabel})`, () => {
  itRekeysEveryTable(
    seedOldKeys,
    {
      pieces: [
        `100 County Road 12, Springfield, IL 62704 → ${NEW_12}`,
        `100 County Road 14, Springfield, IL 62704 → ${NEW_14}`,
        `100 County Rd 12, Springfield, IL 62704 → ${NEW_12}`,
        "100 State Highway 7, Springfield, IL 62704 → 100 STATE HIGHWAY 7, SPRINGFIELD IL 62704",
        "100 County Road JJ, Springfield, IL 62704 → 100 COUNTY ROAD JJ, SPRINGFIELD IL 62704",
        "12 Main Street Garage, Springfield, IL → 12 MAIN ST, SPRINGFIELD IL",
        "5 Elm Rd, Springfield, IL 62704 → 5 ELM RD, SPRINGFIELD IL 62704",
        "12 Main St Apt 2, Springfield, IL 62704 → 12 MAIN ST #2, SPRINGFIELD IL 62704",
        `100 County Road 12, Chatham, IL 62629 → ${OLD}`,
      ].sort(),
      leads: ["100 US Hwy 1, Jupiter, FL 33477 → 100 US HIGHWAY 1, JUPITER FL 33477"],
      conversions: [`100 County Road 12, Springfield, IL 62704 → ${NEW_12} (address:${NEW_12}|2026-06-15)`],
      heldOutDeals: [],
      importRows: ["100 State Route 9A, Albany, NY 12203 → 100 STATE ROUTE 9A, ALBANY NY 12203"],
      customers: [
        `Rita: ${NEW_12} (100 County Road 12, Springfield, IL 62704, webhook, side door, 2026-01-01)`,
      ],
      doNotMail: [`${NEW_12} (100 County Road 12, Springfield, IL 62704, 2026-05-10)`],
      reference: [`${NEW_14} (100 County Rd 14)`],
      homesOfZip: ["62704: 1"],
      neighbourHomes: [NEW_14],
    },
    {
      "100 County Road 12, Springfield, IL 62704": NEW_12,
      "100 County Road 14, Springfield, IL 62704": NEW_14,
    },
  );

  itChangesNothingWithoutSuchKeys();

  itAppliesOnceWhenTwoProcessesMigrate(seedOldKeys, { customers: 1, doNotMail: 1 });
});
