import { describe } from "node:test";
import type { Queryable } from "../../src/db/database.ts";
import { databaseLabel } from "../helpers/harness.ts";
import { oldKeyedRows } from "../helpers/old-keyed-rows.ts";
import { rekeyingMigration } from "../helpers/rekeying-migration.ts";

const REKEY_MIGRATION = "0430_leading_street_type_keys";
const { itRekeysEveryTable, itChangesNothingWithoutSuchKeys, itAppliesOnceWhenTwoProcessesMigrate } =
  rekeyingMigration(REKEY_MIGRATION);

/** "2 Ave of the Americas, New York NY 10036" as keyed before (the type abbreviated), and now. */
const OLD = "2 AVE OF THE AMERICAS, NEW YORK NY 10036";
const NEW = "2 AVENUE OF THE AMERICAS, NEW YORK NY 10036";
/** "2 Ave of the Americas, NY 10036" before (the rest of the name read as the town), and now. */
const OLD_AS_TOWN = "2 AVE, OF THE AMERICAS NY 10036";
const NEW_WITHOUT_TOWN = "2 AVENUE OF THE AMERICAS, NY 10036";

/** Rows as the service stored them before the fix, written in SQL (today's code keys them anew). */
async function seedOldKeys(db: Queryable) {
  const rows = await oldKeyedRows(db);
  const card = await rows.piece("2 Ave of the Americas, New York NY 10036", OLD);
  await rows.piece("2 Ave of the Americas, NY 10036", OLD_AS_TOWN);
  await rows.piece("2 Avenue of the Americas, New York, NY 10036", NEW);
  await rows.piece("2 Ave of the Americas, Apt 4", "2 AVE OF THE AMERICAS #4");
  await rows.piece("100 Ave A NY 10009", "100 AVE, A NY 10009");
  await rows.piece("100 Avenue A, NY 10009", "100 AVENUE, A NY 10009");
  await rows.piece("100 N Av B, New York, NY 10009", "100 N AV B, NEW YORK NY 10009");
  await rows.piece("5 Via Lido, CA 92663", "5 VIA, LIDO CA 92663");
  await rows.piece("100 Hwy 61, Hibbing, MN 55746", "100 HWY 61, HIBBING MN 55746");
  // Candidates whose text keys the same today, and an ordinary address: they stay.
  await rows.piece("100 St Charles Ave, New Orleans, LA 70130", "100 ST CHARLES AVE, NEW ORLEANS LA 70130");
  await rows.piece("12 Park, Springfield, IL 62704", "12 PARK, SPRINGFIELD IL 62704");
  await rows.piece("5 Elm St, Springfield, IL 62704", "5 ELM ST, SPRINGFIELD IL 62704");
  // An old-shaped key whose text now keys as another place (an older parser's key): left.
  await rows.piece("2 Ave of the Americas, Newark, NJ 07102", "2 AVE OF THE AMERICAS, NY 10036");

  await rows.leads(["300 Blvd of the Allies, PA 15222", "300 BLVD, OF THE ALLIES PA 15222"]);
  await rows.conversions({ address: "2 Ave of the Americas, NY 10036", normalizedAddress: OLD_AS_TOWN });
  await rows.importRows(["100 Mt Vernon St, Boston, MA 02108", "100 MT VERNON ST, BOSTON MA 02108"]);
  // Registered in the abbreviated form first, then in full (with notes): one customer now.
  await rows.customers(
    {
      normalizedAddress: OLD,
      address: "2 Ave of the Americas, New York NY 10036",
      source: "webhook",
      createdAt: "2026-01-01T00:00:00Z",
    },
    {
      normalizedAddress: NEW,
      address: "2 Avenue of the Americas, New York, NY 10036",
      notes: "lobby",
      source: "app",
      createdAt: "2026-02-01T00:00:00Z",
    },
  );
  await rows.doNotMail({ normalizedAddress: OLD, pieceId: card, createdAt: "2026-05-10T00:00:00Z" });
  const alliesHome = {
    normalizedAddress: "300 BLVD OF THE ALLIES, PITTSBURGH PA 15222",
    street: "300 Blvd of the Allies",
    city: "Pittsburgh",
    state: "PA",
    zip: "15222",
    latitude: 40.44,
    longitude: -80.0,
  };
  await rows.referenceHomes([alliesHome], { "15222": 1 });
  await rows.neighbourCampaign(alliesHome);
}

describe(`migration 0430 re-keying addresses whose street opens with a street type (${databaseLabel})`, () => {
  itRekeysEveryTable(
    seedOldKeys,
    {
      pieces: [
        "100 Ave A NY 10009 → 100 AVENUE A, NY 10009",
        "100 Avenue A, NY 10009 → 100 AVENUE A, NY 10009",
        "100 Hwy 61, Hibbing, MN 55746 → 100 HIGHWAY 61, HIBBING MN 55746",
        "100 N Av B, New York, NY 10009 → 100 N AVENUE B, NEW YORK NY 10009",
        "100 St Charles Ave, New Orleans, LA 70130 → 100 ST CHARLES AVE, NEW ORLEANS LA 70130",
        "12 Park, Springfield, IL 62704 → 12 PARK, SPRINGFIELD IL 62704",
        "2 Ave of the Americas, Apt 4 → 2 AVENUE OF THE AMERICAS #4",
        `2 Ave of the Americas, NY 10036 → ${NEW_WITHOUT_TOWN}`,
        "2 Ave of the Americas, New York NY 10036 → 2 AVENUE OF THE AMERICAS, NEW YORK NY 10036",
        "2 Ave of the Americas, Newark, NJ 07102 → 2 AVE OF THE AMERICAS, NY 10036",
        `2 Avenue of the Americas, New York, NY 10036 → ${NEW}`,
        "5 Elm St, Springfield, IL 62704 → 5 ELM ST, SPRINGFIELD IL 62704",
        "5 Via Lido, CA 92663 → 5 VIA LIDO, CA 92663",
      ],
      leads: ["300 Blvd of the Allies, PA 15222 → 300 BOULEVARD OF THE ALLIES, PA 15222"],
      conversions: [
        `2 Ave of the Americas, NY 10036 → ${NEW_WITHOUT_TOWN} (address:${NEW_WITHOUT_TOWN}|2026-06-15)`,
      ],
      heldOutDeals: [],
      importRows: ["100 Mt Vernon St, Boston, MA 02108 → 100 MOUNT VERNON ST, BOSTON MA 02108"],
      customers: [`Rita: ${NEW} (2 Ave of the Americas, New York NY 10036, webhook, lobby, 2026-01-01)`],
      doNotMail: [`${NEW} (2 Ave of the Americas, New York NY 10036, 2026-05-10)`],
      reference: ["300 BOULEVARD OF THE ALLIES, PITTSBURGH PA 15222 (300 Blvd of the Allies)"],
      homesOfZip: ["15222: 1"],
      neighbourHomes: ["300 BOULEVARD OF THE ALLIES, PITTSBURGH PA 15222"],
    },
    {
      "2 Ave of the Americas, NY 10036": NEW_WITHOUT_TOWN,
      "2 Ave of the Americas, New York NY 10036": NEW,
    },
  );

  itChangesNothingWithoutSuchKeys();

  itAppliesOnceWhenTwoProcessesMigrate(seedOldKeys, { customers: 1, doNotMail: 1 });
});
