import { describe } from "node:test";
import type { Queryable } from "../../src/db/database.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { oldKeyedRows } from "../helpers/old-keyed-rows.ts";
import { rekeyingMigration } from "../helpers/rekeying-migration.ts";

const REKEY_MIGRATION = "0410_street_type_keys";
const { itRekeysEveryTable, itChangesNothingWithoutSuchKeys, itAppliesOnceWhenTwoProcessesMigrate } =
  rekeyingMigration(REKEY_MIGRATION);

/** "40 Mill Creek Rd, 62704" as the parser keyed it before: "Creek" the type, "Rd" the town. */
const OLD = "40 MILL CRK, RD IL 62704";
const NEW = "40 MILL CREEK RD, IL 62704";

/**
 * Rows as the service stored them before the parser fix, written straight in SQL (the code of
 * today would key them in the new form): the old form in every table, a collision under each
 * primary key, and rows the migration must leave alone.
 */
async function seedOldKeys(db: Queryable) {
  const rows = await oldKeyedRows(db);
  const firstCard = await rows.piece("40 Mill Creek Rd, 62704", OLD);
  const secondCard = await rows.piece("40 Mill Creek Road, IL 62704", "40 MILL CRK, ROAD IL 62704");
  // Keyed after the fix: the same home, under the new key already.
  const laterCard = await rows.piece("40 Mill Creek Rd IL 62704", NEW);
  // A town named like a street type, and an ordinary address: candidates or not, they stay.
  await rows.piece("12 Oak St Center TX 75935", "12 OAK ST, CENTER TX 75935");
  await rows.piece("5 Elm St, Springfield, IL 62704", "5 ELM ST, SPRINGFIELD IL 62704");
  // A key in the old shape whose text reads otherwise now (an older parser's key): left as it is.
  await rows.piece("40 Mill Creek, Rd IL 62704", OLD);

  await rows.leads(
    ["77 Lake Shore Drive, 62704", "77 LAKE SHR, DRIVE IL 62704"],
    ["9 Birch Ln, Springfield, IL", "9 BIRCH LN, SPRINGFIELD IL"],
  );
  await rows.conversions(
    { address: "40 mill creek rd., 62704", normalizedAddress: OLD },
    // The same deal sent again later in another spelling: its key is the first's now, which keeps it.
    {
      address: "40 Mill Creek Road, IL 62704",
      normalizedAddress: "40 MILL CRK, ROAD IL 62704",
      createdAt: "2026-06-15T10:00:00Z",
    },
    {
      address: "40 Mill Creek Rd, 62704",
      normalizedAddress: OLD,
      idempotencyKey: "deal:D-7",
      createdAt: "2026-06-16T10:00:00Z",
    },
  );
  // A deal at a held-out home: no address stored, its home a customer.
  await rows.heldOutDeal(`address:${OLD}|2026-06-20`, firstCard);
  await rows.importRows(["41 Mill Creek Rd, IL 62704", "41 MILL CRK, RD IL 62704"]);
  // Rita registered the home in the old form first, then again after the fix (with notes); Other once.
  await rows.customers(
    {
      normalizedAddress: OLD,
      address: "40 Mill Creek Rd, 62704",
      source: "webhook",
      createdAt: "2026-01-01T00:00:00Z",
    },
    {
      normalizedAddress: NEW,
      address: "40 Mill Creek Rd IL 62704",
      notes: "gate code 12",
      source: "app",
      createdAt: "2026-02-01T00:00:00Z",
    },
    {
      org: "other",
      normalizedAddress: OLD,
      address: "40 Mill Creek Rd, 62704",
      source: "app",
      createdAt: "2026-03-01T00:00:00Z",
    },
  );
  // The home opted out from two cards, before and after the fix.
  await rows.doNotMail(
    { normalizedAddress: OLD, pieceId: firstCard, createdAt: "2026-05-10T00:00:00Z" },
    {
      normalizedAddress: "40 MILL CRK, ROAD IL 62704",
      pieceId: secondCard,
      createdAt: "2026-05-11T00:00:00Z",
    },
    { normalizedAddress: NEW, pieceId: laterCard, createdAt: "2026-06-01T00:00:00Z" },
  );
  // Reference homes: one in the old form only, one loaded in both forms, and another street.
  const inSpringfield = { state: "IL", zip: "62704", latitude: 39.7, longitude: -89.6 };
  const oldFormOnly = {
    ...inSpringfield,
    normalizedAddress: "41 MILL CRK, RD IL 62704",
    street: "41 Mill Creek Rd",
    city: "",
  };
  await rows.referenceHomes(
    [
      oldFormOnly,
      { ...inSpringfield, normalizedAddress: OLD, street: "40 Mill Creek Rd", city: "" },
      { ...inSpringfield, normalizedAddress: NEW, street: "40 Mill Creek Road", city: "" },
      {
        ...inSpringfield,
        normalizedAddress: "5 ELM ST, SPRINGFIELD IL 62704",
        street: "5 Elm St",
        city: "Springfield",
      },
    ],
    { "62704": 4 },
  );
  await rows.neighbourCampaign(oldFormOnly);
}

describe(`migration 0410 re-keying addresses whose street type was read as the town (${databaseLabel})`, () => {
  itRekeysEveryTable(
    seedOldKeys,
    {
      pieces: [
        `12 Oak St Center TX 75935 → 12 OAK ST, CENTER TX 75935`,
        `40 Mill Creek Rd IL 62704 → ${NEW}`,
        `40 Mill Creek Rd, 62704 → ${NEW}`,
        `40 Mill Creek Road, IL 62704 → ${NEW}`,
        `40 Mill Creek, Rd IL 62704 → ${OLD}`,
        `5 Elm St, Springfield, IL 62704 → 5 ELM ST, SPRINGFIELD IL 62704`,
      ],
      leads: [
        "77 Lake Shore Drive, 62704 → 77 LAKE SHORE DR, IL 62704",
        "9 Birch Ln, Springfield, IL → 9 BIRCH LN, SPRINGFIELD IL",
      ],
      conversions: [
        `40 Mill Creek Rd, 62704 → ${NEW} (deal:D-7)`,
        `40 Mill Creek Road, IL 62704 → ${NEW} (address:40 MILL CRK, ROAD IL 62704|2026-06-15)`,
        `40 mill creek rd., 62704 → ${NEW} (address:${NEW}|2026-06-15)`,
      ],
      heldOutDeals: [`address:${NEW}|2026-06-20`],
      importRows: ["41 Mill Creek Rd, IL 62704 → 41 MILL CREEK RD, IL 62704"],
      customers: [
        // One customer: the first registration's address, source and date, the later one's notes.
        `Other: ${NEW} (40 Mill Creek Rd, 62704, app, -, 2026-03-01)`,
        `Rita: ${NEW} (40 Mill Creek Rd, 62704, webhook, gate code 12, 2026-01-01)`,
      ],
      // One opt-out: the earliest.
      doNotMail: [`${NEW} (40 Mill Creek Rd, 62704, 2026-05-10)`],
      reference: [
        `${NEW} (40 Mill Creek Road)`,
        "41 MILL CREEK RD, IL 62704 (41 Mill Creek Rd)",
        "5 ELM ST, SPRINGFIELD IL 62704 (5 Elm St)",
      ],
      homesOfZip: ["62704: 3"],
      neighbourHomes: ["41 MILL CREEK RD, IL 62704"],
    },
    {
      "40 Mill Creek Rd, 62704": NEW,
    },
  );

  itChangesNothingWithoutSuchKeys();

  itAppliesOnceWhenTwoProcessesMigrate(seedOldKeys, { customers: 2, doNotMail: 1 });
});
