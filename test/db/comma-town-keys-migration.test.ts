import { describe } from "node:test";
import type { Queryable } from "../../src/db/database.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { oldKeyedRows } from "../helpers/old-keyed-rows.ts";
import { rekeyingMigration } from "../helpers/rekeying-migration.ts";

const REKEY_MIGRATION = "0440_comma_town_keys";
const { itRekeysEveryTable, itChangesNothingWithoutSuchKeys, itAppliesOnceWhenTwoProcessesMigrate } =
  rekeyingMigration(REKEY_MIGRATION);

/** "100 Broadway, Long Beach, CA 90802" as keyed before (the town read into the street), and now. */
const OLD = "100 BROADWAY LONG BCH, CA 90802";
const NEW = "100 BROADWAY, LONG BEACH CA 90802";
/** "20 Calle Ocho Coral Gables FL 33134" before (the street's last word read into the town), and now. */
const OLD_IN_TOWN = "20 CALLE, OCHO CORAL GABLES FL 33134";
const NEW_CALLE = "20 CALLE OCHO, CORAL GABLES FL 33134";

/** Rows as the service stored them before the fix, written in SQL (today's code keys them anew). */
async function seedOldKeys(db: Queryable) {
  const rows = await oldKeyedRows(db);
  const card = await rows.piece("100 Broadway, Long Beach, CA 90802", OLD);
  await rows.piece("100 Broadway Long Beach CA 90802", OLD);
  await rows.piece("100 Broadway, Long Beach CA 90802", NEW);
  await rows.piece("7 Via Roma, Newport Beach CA", "7 VIA ROMA NEWPORT BCH, CA");
  await rows.piece("20 Calle Ocho Coral Gables FL 33134", OLD_IN_TOWN);
  // Candidates whose text keys the same today, and an ordinary address: they stay.
  await rows.piece("40 Mill Creek Rd, 62704", "40 MILL CREEK RD, IL 62704");
  await rows.piece("12 Kings Hwy, Park Ridge, IL 60068", "12 KINGS HWY, PARK RIDGE IL 60068");
  await rows.piece("5 Elm St, Springfield, IL 62704", "5 ELM ST, SPRINGFIELD IL 62704");
  // An old-shaped key whose text now keys as another place (an older parser's key): left.
  await rows.piece("100 Broadway, Long Beach, NY 11561", OLD);

  await rows.leads(["50 Broadway, Saratoga Springs, NY 12866", "50 BROADWAY SARATOGA SPGS, NY 12866"]);
  await rows.conversions({ address: "100 Broadway Long Beach CA 90802", normalizedAddress: OLD });
  await rows.importRows(["15 Esplanade, Redondo Beach, CA 90277", "15 ESPLANADE REDONDO BCH, CA 90277"]);
  // Registered in the old form first, then again after the fix (with notes): one customer now.
  await rows.customers(
    {
      normalizedAddress: OLD,
      address: "100 Broadway, Long Beach, CA 90802",
      source: "webhook",
      createdAt: "2026-01-01T00:00:00Z",
    },
    {
      normalizedAddress: NEW,
      address: "100 Broadway Long Beach CA 90802",
      notes: "side door",
      source: "app",
      createdAt: "2026-02-01T00:00:00Z",
    },
  );
  await rows.doNotMail({ normalizedAddress: OLD, pieceId: card, createdAt: "2026-05-10T00:00:00Z" });
  const viaRoma = {
    normalizedAddress: "10 VIA ROMA NEWPORT BCH, CA 92660",
    street: "10 Via Roma",
    city: "Newport Beach",
    state: "CA",
    zip: "92660",
    latitude: 33.6,
    longitude: -117.9,
  };
  await rows.referenceHomes([viaRoma], { "92660": 1 });
  await rows.neighbourCampaign(viaRoma);
}

describe(`migration 0440 re-keying addresses whose town was read into the street (${databaseLabel})`, () => {
  itRekeysEveryTable(
    seedOldKeys,
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
    {
      "100 Broadway, Long Beach, CA 90802": NEW,
      "20 Calle Ocho Coral Gables FL 33134": NEW_CALLE,
    },
  );

  itChangesNothingWithoutSuchKeys();

  itAppliesOnceWhenTwoProcessesMigrate(seedOldKeys, { customers: 1, doNotMail: 1 });
});
