import { describe } from "node:test";
import type { Queryable } from "../../src/db/database.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { oldKeyedRows } from "../helpers/old-keyed-rows.ts";
import { rekeyingMigration } from "../helpers/rekeying-migration.ts";

const REKEY_MIGRATION = "0540_ordinal_street_keys";
const { itRekeysEveryTable, itChangesNothingWithoutSuchKeys, itAppliesOnceWhenTwoProcessesMigrate } =
  rekeyingMigration(REKEY_MIGRATION);

/** A home on Fifth Avenue keyed before (the ordinal in words), and now (in figures). */
const OLD = "12 FIFTH AVE, NEW YORK NY 10011";
const NEW = "12 5TH AVE, NEW YORK NY 10011";

/** Rows as the service stored them before the fix, written in SQL (today's code keys them anew). */
async function seedOldKeys(db: Queryable) {
  const rows = await oldKeyedRows(db);
  const card = await rows.piece("12 Fifth Avenue, New York, NY 10011", OLD);
  await rows.piece("7 W Twenty-First St, New York, NY 10010", "7 W TWENTY-FIRST ST, NEW YORK NY 10010");
  await rows.piece("9 Twenty Third St, Springfield IL", "9 TWENTY THIRD ST, SPRINGFIELD IL");
  await rows.piece(
    "40 One Hundred Twenty-Fifth St, New York NY 10027",
    "40 ONE HUNDRED TWENTY-FIFTH ST, NEW YORK NY 10027",
  );
  // Already in figures, no ordinal, an ordinal only in a unit: they stay.
  await rows.piece("12 5th Ave, New York, NY 10011", NEW);
  await rows.piece("3 Fifer Ln, Springfield, IL 62704", "3 FIFER LN, SPRINGFIELD IL 62704");
  await rows.piece("3 Main St Apt Fifth, Springfield, IL 62704", "3 MAIN ST #FIFTH, SPRINGFIELD IL 62704");

  await rows.leads(["9 Twenty-Third St, Springfield IL", "9 TWENTY-THIRD ST, SPRINGFIELD IL"]);
  await rows.conversions({ address: "12 Fifth Avenue, New York, NY 10011", normalizedAddress: OLD });
  await rows.importRows(["100 First Street, Springfield, IL 62704", "100 FIRST ST, SPRINGFIELD IL 62704"]);
  // Registered in words first, then again in figures (with notes): one customer now.
  await rows.customers(
    {
      normalizedAddress: OLD,
      address: "12 Fifth Avenue, New York, NY 10011",
      source: "webhook",
      createdAt: "2026-01-01T00:00:00Z",
    },
    {
      normalizedAddress: NEW,
      address: "12 5th Ave, New York, NY 10011",
      notes: "side door",
      source: "app",
      createdAt: "2026-02-01T00:00:00Z",
    },
  );
  await rows.doNotMail({ normalizedAddress: OLD, pieceId: card, createdAt: "2026-05-10T00:00:00Z" });
  const home = {
    normalizedAddress: "40 SECOND ST, SPRINGFIELD IL 62704",
    street: "40 Second St",
    city: "Springfield",
    state: "IL",
    zip: "62704",
    latitude: 39.78,
    longitude: -89.65,
  };
  await rows.referenceHomes([home], { "62704": 1 });
  await rows.neighbourCampaign(home);
}

describe(`migration 0540 re-keying numbered streets written in words (${databaseLabel})`, () => {
  itRekeysEveryTable(
    seedOldKeys,
    {
      pieces: [
        `12 Fifth Avenue, New York, NY 10011 → ${NEW}`,
        "7 W Twenty-First St, New York, NY 10010 → 7 W 21ST ST, NEW YORK NY 10010",
        "9 Twenty Third St, Springfield IL → 9 23RD ST, SPRINGFIELD IL",
        "40 One Hundred Twenty-Fifth St, New York NY 10027 → 40 125TH ST, NEW YORK NY 10027",
        `12 5th Ave, New York, NY 10011 → ${NEW}`,
        "3 Fifer Ln, Springfield, IL 62704 → 3 FIFER LN, SPRINGFIELD IL 62704",
        "3 Main St Apt Fifth, Springfield, IL 62704 → 3 MAIN ST #FIFTH, SPRINGFIELD IL 62704",
      ].sort(),
      leads: ["9 Twenty-Third St, Springfield IL → 9 23RD ST, SPRINGFIELD IL"],
      conversions: [`12 Fifth Avenue, New York, NY 10011 → ${NEW} (address:${NEW}|2026-06-15)`],
      heldOutDeals: [],
      importRows: ["100 First Street, Springfield, IL 62704 → 100 1ST ST, SPRINGFIELD IL 62704"],
      customers: [`Rita: ${NEW} (12 Fifth Avenue, New York, NY 10011, webhook, side door, 2026-01-01)`],
      doNotMail: [`${NEW} (12 Fifth Avenue, New York, NY 10011, 2026-05-10)`],
      reference: ["40 2ND ST, SPRINGFIELD IL 62704 (40 Second St)"],
      homesOfZip: ["62704: 1"],
      neighbourHomes: ["40 2ND ST, SPRINGFIELD IL 62704"],
    },
    {
      "12 Fifth Avenue, New York, NY 10011": NEW,
      "12 5th Ave, New York, NY 10011": NEW,
      "7 W Twenty-First St, New York, NY 10010": "7 W 21ST ST, NEW YORK NY 10010",
      "40 One Hundred Twenty-Fifth St, New York NY 10027": "40 125TH ST, NEW YORK NY 10027",
    },
  );

  itChangesNothingWithoutSuchKeys();

  itAppliesOnceWhenTwoProcessesMigrate(seedOldKeys, { customers: 1, doNotMail: 1 });
});
