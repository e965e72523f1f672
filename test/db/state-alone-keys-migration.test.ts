import { describe } from "node:test";
import type { Queryable } from "../../src/db/database.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { oldKeyedRows } from "../helpers/old-keyed-rows.ts";
import { rekeyingMigration } from "../helpers/rekeying-migration.ts";

const REKEY_MIGRATION = "0450_state_alone_keys";
const { itRekeysEveryTable, itChangesNothingWithoutSuchKeys, itAppliesOnceWhenTwoProcessesMigrate } =
  rekeyingMigration(REKEY_MIGRATION);

/** "2 Ave of the Americas, NY" as keyed before (the name cut after its type), and now. */
const OLD = "2 AVE, OF THE AMERICAS NY";
const OLD_SPELLED = "2 AVENUE, OF THE AMERICAS NY";
const NEW = "2 AVENUE OF THE AMERICAS, NY";
/** "100 Main St West Springfield MA" before (the town's direction read as the street's), and now. */
const OLD_WEST = "100 MAIN ST W, SPRINGFIELD MA";
const NEW_WEST = "100 MAIN ST, WEST SPRINGFIELD MA";

/** Rows as the service stored them before the fix, written in SQL (today's code keys them anew). */
async function seedOldKeys(db: Queryable) {
  const rows = await oldKeyedRows(db);
  const card = await rows.piece("2 Ave of the Americas, NY", OLD);
  await rows.piece("2 Avenue of the Americas NY", OLD_SPELLED);
  await rows.piece("2 Av of the Americas, New York", OLD);
  await rows.piece("100 Ave A, NY", "100 AVE, A NY");
  await rows.piece("100 Main St West Springfield MA", OLD_WEST);
  await rows.piece("100 Main St East Orange NJ", "100 MAIN ST E, ORANGE NJ");
  // Candidates whose text keys the same today, and an ordinary address: they stay.
  await rows.piece("100 Main St W, Springfield MA", OLD_WEST);
  await rows.piece("100 Main St W Springfield MA", OLD_WEST);
  await rows.piece("10 Loop Springfield IL", "10 LOOP, SPRINGFIELD IL");
  await rows.piece("5 Elm St, Springfield, IL 62704", "5 ELM ST, SPRINGFIELD IL 62704");
  // An old-shaped key whose text now keys as another place (an older parser's key): left.
  await rows.piece("2 Ave of the Americas, New York, NY", OLD);
  // With a ZIP the reading was already right (0430): not this migration's.
  await rows.piece("2 Ave of the Americas, NY 10036", "2 AVE, OF THE AMERICAS NY 10036");

  await rows.leads(["5 Via Lido, CA", "5 VIA, LIDO CA"]);
  await rows.conversions({ address: "2 Avenue of the Americas NY", normalizedAddress: OLD_SPELLED });
  await rows.importRows(["100 Main St North Adams MA", "100 MAIN ST N, ADAMS MA"]);
  // Registered in the old form first, then again after the fix (with notes): one customer now.
  await rows.customers(
    {
      normalizedAddress: OLD_WEST,
      address: "100 Main St West Springfield MA",
      source: "webhook",
      createdAt: "2026-01-01T00:00:00Z",
    },
    {
      normalizedAddress: NEW_WEST,
      address: "100 Main St, West Springfield, MA",
      notes: "side door",
      source: "app",
      createdAt: "2026-02-01T00:00:00Z",
    },
  );
  await rows.doNotMail({ normalizedAddress: OLD, pieceId: card, createdAt: "2026-05-10T00:00:00Z" });
  const avenueA = {
    normalizedAddress: "100 AVENUE, A NY",
    street: "100 Avenue A",
    city: "",
    state: "NY",
    zip: "",
    latitude: 40.7,
    longitude: -73.98,
  };
  await rows.referenceHomes([avenueA], { "10009": 0 });
  await rows.neighbourCampaign(avenueA);
}

describe(`migration 0450 re-keying addresses with a state but no ZIP (${databaseLabel})`, () => {
  itRekeysEveryTable(
    seedOldKeys,
    {
      pieces: [
        `2 Ave of the Americas, NY → ${NEW}`,
        `2 Avenue of the Americas NY → ${NEW}`,
        `2 Av of the Americas, New York → ${NEW}`,
        "100 Ave A, NY → 100 AVENUE A, NY",
        `100 Main St West Springfield MA → ${NEW_WEST}`,
        "100 Main St East Orange NJ → 100 MAIN ST, EAST ORANGE NJ",
        `100 Main St W, Springfield MA → ${OLD_WEST}`,
        `100 Main St W Springfield MA → ${OLD_WEST}`,
        "10 Loop Springfield IL → 10 LOOP, SPRINGFIELD IL",
        "5 Elm St, Springfield, IL 62704 → 5 ELM ST, SPRINGFIELD IL 62704",
        `2 Ave of the Americas, New York, NY → ${OLD}`,
        "2 Ave of the Americas, NY 10036 → 2 AVE, OF THE AMERICAS NY 10036",
      ].sort(),
      leads: ["5 Via Lido, CA → 5 VIA LIDO, CA"],
      conversions: [`2 Avenue of the Americas NY → ${NEW} (address:${NEW}|2026-06-15)`],
      heldOutDeals: [],
      importRows: ["100 Main St North Adams MA → 100 MAIN ST, NORTH ADAMS MA"],
      customers: [`Rita: ${NEW_WEST} (100 Main St West Springfield MA, webhook, side door, 2026-01-01)`],
      doNotMail: [`${NEW} (2 Ave of the Americas, NY, 2026-05-10)`],
      reference: ["100 AVENUE A, NY (100 Avenue A)"],
      homesOfZip: ["10009: 0"],
      neighbourHomes: ["100 AVENUE A, NY"],
    },
    {
      "2 Ave of the Americas, NY": NEW,
      "100 Main St West Springfield MA": NEW_WEST,
    },
  );

  itChangesNothingWithoutSuchKeys();

  itAppliesOnceWhenTwoProcessesMigrate(seedOldKeys, { customers: 1, doNotMail: 1 });
});
