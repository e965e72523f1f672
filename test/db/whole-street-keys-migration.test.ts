import { describe } from "node:test";
import type { Queryable } from "../../src/db/database.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { oldKeyedRows } from "../helpers/old-keyed-rows.ts";
import { rekeyingMigration } from "../helpers/rekeying-migration.ts";

const REKEY_MIGRATION = "0420_whole_street_keys";
const { itRekeysEveryTable, itChangesNothingWithoutSuchKeys, itAppliesOnceWhenTwoProcessesMigrate } =
  rekeyingMigration(REKEY_MIGRATION);

/** "40 N Mill Creek Rd, 62704" as the parser keyed it before ("Mill" the type, "Creek Rd" the town), and now. */
const OLD = "40 N ML, CREEK RD IL 62704";
const NEW = "40 N MILL CREEK RD, IL 62704";
/** "40 Mill Creek Ct CT 06001" and "40 Mill Creek Ct, CT 06001" before, and now. */
const OLD_CT_IN_STREET = "40 MILL CREEK CT CT, CT 06001";
const OLD_CT_AS_TOWN = "40 MILL CRK, CT CT 06001";
const NEW_CT = "40 MILL CREEK CT, CT 06001";

/**
 * Rows as the service stored them before the parser fix, written straight in SQL (the code of
 * today would key them in the new form): each old form in some table, a collision under each
 * primary key, and rows the migration must leave alone.
 */
async function seedOldKeys(db: Queryable) {
  const rows = await oldKeyedRows(db);
  const firstCard = await rows.piece("40 N Mill Creek Rd, 62704", OLD);
  await rows.piece("40 N Mill Creek Road, IL 62704", "40 N ML, CREEK ROAD IL 62704");
  // Keyed after the fix: the same home, under the new key already.
  await rows.piece("40 N Mill Creek Rd IL 62704", NEW);
  const courtCard = await rows.piece("40 Mill Creek Ct CT 06001", OLD_CT_IN_STREET);
  const courtAsTownCard = await rows.piece("40 Mill Creek Ct, CT 06001", OLD_CT_AS_TOWN);
  await rows.piece("8 W Park Ave, 80202", "8 W PARK, CO 80202");
  await rows.piece("9 Lake St Louisville KY 40202", "9 LAKE ST LOUISVILLE KY, KY 40202");
  await rows.piece("12 Main St Bsmt, 83702", "12 MAIN ST, BSMT ID 83702");
  await rows.piece("PO Box 123, TX 78701", "PO BOX 123, TX TX 78701");
  await rows.piece("12 Broadway Springfield 62701", "12 BROADWAY SPRINGFIELD, IL 62701");
  await rows.piece("30 E Main St Apt 2B, 53703", "30 E MAIN ST #2, B WI 53703");
  await rows.piece("40 Mill Creek Ct, Avon", "40 MILL, AVON");
  await rows.piece("12 Broadway, Springfield", "12 BROADWAY, SPRINGFIELD");
  // Candidates whose text keys the same today, and an ordinary address: they stay.
  await rows.piece("12 Oak St Center TX 75935", "12 OAK ST, CENTER TX 75935");
  await rows.piece("100 N Main, 62704", "100 N MAIN, IL 62704");
  await rows.piece("40 Mill Creek, CT 06001", "40 MILL CRK, CT 06001");
  await rows.piece("5 Elm St, Springfield, IL 62704", "5 ELM ST, SPRINGFIELD IL 62704");
  // A town starting with a direction, set off by a comma, ending with its ZIP's city (Boston): kept.
  await rows.piece("100 Main St, South Boston, MA 02127", "100 MAIN ST, SOUTH BOSTON MA 02127");
  // An old-shaped key whose text now names a town the key never held (an older parser's key): left.
  await rows.piece("7 Main St W, Springfield, IL 62704", "7 MAIN ST, W IL 62704");

  await rows.leads(
    ["45 Harbor Pkwy SW, 98101", "45 HARBOR PKWY, SW WA 98101"],
    ["8 W Park Ave Denver CO", "8 W PARK, AVE DENVER CO"],
    ["9 Birch Ln, Springfield, IL", "9 BIRCH LN, SPRINGFIELD IL"],
  );
  await rows.conversions(
    { address: "40 n mill creek rd., 62704", normalizedAddress: OLD },
    // The same deal sent again later in another spelling: its key is the first's now, which keeps it.
    {
      address: "40 N Mill Creek Road, IL 62704",
      normalizedAddress: "40 N ML, CREEK ROAD IL 62704",
      createdAt: "2026-06-15T10:00:00Z",
    },
    {
      address: "15 N Park Ave Apt 2, TX 78701",
      normalizedAddress: "15 N PARK AVE #2, TX TX 78701",
      idempotencyKey: "deal:D-7",
      createdAt: "2026-06-16T10:00:00Z",
    },
  );
  // A deal at a held-out home: no address stored, its home a customer.
  await rows.heldOutDeal(`address:${OLD}|2026-06-20`, firstCard);
  await rows.importRows(["3 River Rd WY 82001", "3 RIVER RD WAY, WY 82001"]);
  // Rita registered the home in the old form first, then again after the fix (with notes); Other once.
  await rows.customers(
    {
      normalizedAddress: OLD,
      address: "40 N Mill Creek Rd, 62704",
      source: "webhook",
      createdAt: "2026-01-01T00:00:00Z",
    },
    {
      normalizedAddress: NEW,
      address: "40 N Mill Creek Rd IL 62704",
      notes: "gate code 12",
      source: "app",
      createdAt: "2026-02-01T00:00:00Z",
    },
    {
      org: "other",
      normalizedAddress: OLD,
      address: "40 N Mill Creek Rd, 62704",
      source: "app",
      createdAt: "2026-03-01T00:00:00Z",
    },
  );
  // The home opted out from two cards keyed in two old forms.
  await rows.doNotMail(
    { normalizedAddress: OLD_CT_IN_STREET, pieceId: courtCard, createdAt: "2026-05-10T00:00:00Z" },
    { normalizedAddress: OLD_CT_AS_TOWN, pieceId: courtAsTownCard, createdAt: "2026-05-11T00:00:00Z" },
  );
  // Reference homes: one in the old form only, one loaded in both forms, and another street.
  const millStreet = {
    normalizedAddress: "400 E ML, WI 53703",
    street: "400 E Mill St",
    city: "",
    state: "WI",
    zip: "53703",
    latitude: 43.07,
    longitude: -89.4,
  };
  const inDenver = { city: "", state: "CO", zip: "80202", latitude: 39.75, longitude: -105.0 };
  await rows.referenceHomes(
    [
      millStreet,
      { ...inDenver, normalizedAddress: "8 W PARK, CO 80202", street: "8 W Park Ave" },
      { ...inDenver, normalizedAddress: "8 W PARK AVE, CO 80202", street: "8 W Park Avenue" },
      {
        normalizedAddress: "5 ELM ST, SPRINGFIELD IL 62704",
        street: "5 Elm St",
        city: "Springfield",
        state: "IL",
        zip: "62704",
        latitude: 39.7,
        longitude: -89.6,
      },
    ],
    { "53703": 1, "80202": 2, "62704": 1 },
  );
  await rows.neighbourCampaign(millStreet);
}

describe(`migration 0420 re-keying addresses whose street was read into the town or the state (${databaseLabel})`, () => {
  itRekeysEveryTable(
    seedOldKeys,
    {
      pieces: [
        "100 Main St, South Boston, MA 02127 → 100 MAIN ST, SOUTH BOSTON MA 02127",
        "100 N Main, 62704 → 100 N MAIN, IL 62704",
        "12 Broadway Springfield 62701 → 12 BROADWAY, SPRINGFIELD IL 62701",
        "12 Broadway, Springfield → 12 BROADWAY, SPRINGFIELD",
        "12 Main St Bsmt, 83702 → 12 MAIN ST BSMT, ID 83702",
        "12 Oak St Center TX 75935 → 12 OAK ST, CENTER TX 75935",
        "30 E Main St Apt 2B, 53703 → 30 E MAIN ST #2B, WI 53703",
        `40 Mill Creek Ct CT 06001 → ${NEW_CT}`,
        "40 Mill Creek Ct, Avon → 40 MILL CREEK CT, AVON",
        `40 Mill Creek Ct, CT 06001 → ${NEW_CT}`,
        "40 Mill Creek, CT 06001 → 40 MILL CRK, CT 06001",
        `40 N Mill Creek Rd IL 62704 → ${NEW}`,
        `40 N Mill Creek Rd, 62704 → ${NEW}`,
        `40 N Mill Creek Road, IL 62704 → ${NEW}`,
        "5 Elm St, Springfield, IL 62704 → 5 ELM ST, SPRINGFIELD IL 62704",
        "7 Main St W, Springfield, IL 62704 → 7 MAIN ST, W IL 62704",
        "8 W Park Ave, 80202 → 8 W PARK AVE, CO 80202",
        "9 Lake St Louisville KY 40202 → 9 LAKE ST, LOUISVILLE KY 40202",
        "PO Box 123, TX 78701 → PO BOX 123, TX 78701",
      ],
      leads: [
        "45 Harbor Pkwy SW, 98101 → 45 HARBOR PKWY SW, WA 98101",
        "8 W Park Ave Denver CO → 8 W PARK AVE, DENVER CO",
        "9 Birch Ln, Springfield, IL → 9 BIRCH LN, SPRINGFIELD IL",
      ],
      conversions: [
        "15 N Park Ave Apt 2, TX 78701 → 15 N PARK AVE #2, TX 78701 (deal:D-7)",
        `40 N Mill Creek Road, IL 62704 → ${NEW} (address:40 N ML, CREEK ROAD IL 62704|2026-06-15)`,
        `40 n mill creek rd., 62704 → ${NEW} (address:${NEW}|2026-06-15)`,
      ],
      heldOutDeals: [`address:${NEW}|2026-06-20`],
      importRows: ["3 River Rd WY 82001 → 3 RIVER RD, WY 82001"],
      customers: [
        // One customer: the first registration's address, source and date, the later one's notes.
        `Other: ${NEW} (40 N Mill Creek Rd, 62704, app, -, 2026-03-01)`,
        `Rita: ${NEW} (40 N Mill Creek Rd, 62704, webhook, gate code 12, 2026-01-01)`,
      ],
      // One opt-out: the earliest.
      doNotMail: [`${NEW_CT} (40 Mill Creek Ct CT 06001, 2026-05-10)`],
      reference: [
        "400 E MILL ST, WI 53703 (400 E Mill St)",
        "5 ELM ST, SPRINGFIELD IL 62704 (5 Elm St)",
        "8 W PARK AVE, CO 80202 (8 W Park Avenue)",
      ],
      homesOfZip: ["53703: 1", "62704: 1", "80202: 1"],
      neighbourHomes: ["400 E MILL ST, WI 53703"],
    },
    {
      "40 N Mill Creek Rd, 62704": NEW,
      "40 Mill Creek Ct, CT 06001": NEW_CT,
    },
  );

  itChangesNothingWithoutSuchKeys();

  itAppliesOnceWhenTwoProcessesMigrate(seedOldKeys, { customers: 2, doNotMail: 1 });
});
