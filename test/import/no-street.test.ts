import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { GeocodeResult, Geocoder } from "../../src/geo/geocoder.ts";
import { createLocalGeocoder } from "../../src/geo/local.ts";
import { namesNoStreet } from "../../src/imports/csv-table.ts";
import { inviteAndAccept, type SignedInUser } from "../app-api/helpers.ts";
import { createOrg } from "../helpers/api.ts";
import { createTestContext, databaseLabel, type TestContext } from "../helpers/harness.ts";
import { postImport } from "./import-helpers.ts";

const csv = (lines: string[]) => `${lines.join("\r\n")}\r\n`;
const upload = (user: SignedInUser, url: string, body: string) =>
  user.browser.request("POST", url, { payload: body, headers: { "content-type": "text/csv" } });
const UPLOAD_URL =
  "/app/api/v1/imports/upload?street=Address&city=City&state=State&zip=ZIP&customer_name=Customer&completed_at=Job%20Date";

/**
 * A geocoder at the edge that places every address it is asked (as a remote one places a bare
 * "Springfield, IL 62704" on its town) and keeps what it was asked, or answers as the offline one.
 */
function recordingGeocoder(placesEverything: boolean): Geocoder & { asked: string[] } {
  const local = createLocalGeocoder();
  const asked: string[] = [];
  const geocode = async (address: string): Promise<GeocodeResult> => {
    asked.push(address);
    if (!placesEverything) return local.geocode(address);
    return {
      found: true,
      lat: 39.78,
      lng: -89.65,
      precision: "locality",
      parts: { street: "", city: "SPRINGFIELD", state: "IL", zip: "62704", country: "US" },
    };
  };
  return {
    provider: "recording",
    asked,
    geocode,
    geocodeMany: async (addresses) => Promise.all(addresses.map(geocode)),
  };
}

describe("a line that names only a town, state or ZIP (the CSV's empty street)", () => {
  test("is told apart from a street written without its number or city", () => {
    const cases: [string, boolean][] = [
      ["Springfield, IL 62704", true],
      ["Springfield, Illinois", true],
      ["Springfield, 62704", true],
      ["IL 62704", true],
      ["62704", true],
      ["742 Evergreen Terrace, Springfield, IL 62704", false],
      ["742 Evergreen Terrace, IL 62704", false],
      ["Evergreen Terrace, IL 62704", false],
      ["PO Box 12, IL 62704", false],
      ["Springfield", false],
      ["Shelbyvile, IL 62704", false],
      ["9 Nowhere Rd, Atlantis, ZZ 00000", false],
    ];
    for (const [line, streetless] of cases) assert.equal(namesNoStreet(line), streetless, line);
  });
});

for (const placesEverything of [false, true]) {
  const geocoderLabel = placesEverything ? "a geocoder that places a town" : "the offline geocoder";
  describe(`past jobs without a street, app upload and developer API, with ${geocoderLabel} (${databaseLabel})`, () => {
    let ctx: TestContext;
    let geocoder: ReturnType<typeof recordingGeocoder>;
    let org: { orgId: string; key: string };
    let owner: SignedInUser;

    before(async () => {
      geocoder = recordingGeocoder(placesEverything);
      const dataDir = mkdtempSync(path.join(tmpdir(), "porchlight-no-street-"));
      ctx = await createTestContext({ geocoder, config: { dataDir } });
      org = await createOrg(ctx);
      owner = await inviteAndAccept(ctx, org.orgId, "owner@no-street.example", "owner");
    });
    after(() => ctx.close());

    test("a CSV row with a name, city, state and ZIP but an empty street is skipped as having no address", async () => {
      geocoder.asked.length = 0;
      const staged = await upload(
        owner,
        UPLOAD_URL,
        csv([
          "Customer,Address,City,State,ZIP,Job Date",
          "Patty Bouvier,22 Cedar Ct,Springfield,IL,62704,03/14/2024",
          "Hans Moleman,,Springfield,IL,62704,",
          "Gil Gunderson,,,IL,62704,",
          "Kent Brockman,600 Birch Blvd,Springfield,IL,62702,11/5/2022",
        ]),
      );
      assert.equal(staged.status, 201, staged.text);
      assert.deepEqual(
        [staged.body.staged, staged.body.skipped_no_address, staged.body.skipped_geocode_failed],
        [2, 2, 0],
        staged.text,
      );
      assert.deepEqual(
        geocoder.asked,
        ["22 Cedar Ct, Springfield, IL 62704", "600 Birch Blvd, Springfield, IL 62702"],
        "a row with no street never reaches the geocoder",
      );
      const batch = await owner.browser.request("GET", `/app/api/v1/imports/${staged.body.import_id}`);
      assert.equal(batch.status, 200, batch.text);
      assert.deepEqual(batch.body.skipped_rows, [
        {
          row_index: 1,
          line: 3,
          address: "Springfield, IL 62704",
          customer_name: "Hans Moleman",
          external_id: null,
          reason: "no_address",
        },
        {
          row_index: 2,
          line: 4,
          address: "IL 62704",
          customer_name: "Gil Gunderson",
          external_id: null,
          reason: "no_address",
        },
      ]);
      assert.equal(batch.body.skipped_no_address, 2, "the batch's counts are its skipped rows'");
      assert.equal(batch.body.skipped_geocode_failed, 0);
    });

    test("a CSV row whose street has no house number is still looked up, and not found is not found", async () => {
      const staged = await upload(
        owner,
        UPLOAD_URL,
        csv(["Customer,Address,City,State,ZIP,Job Date", "Ned Flanders,Evergreen Terrace,,IL,62704,"]),
      );
      assert.equal(staged.status, 201, staged.text);
      assert.equal(staged.body.skipped_no_address, 0, staged.text);
      assert.equal(staged.body.staged + staged.body.skipped_geocode_failed, 1, staged.text);
    });

    test("the developer API keeps its contract: only a missing or blank address is skipped_no_address", async () => {
      geocoder.asked.length = 0;
      const response = await postImport(ctx, org.key, {
        source: "jobs",
        rows: [
          { customer_name: "No Address" },
          { address: "  ", customer_name: "Blank Address" },
          { address: "Springfield, IL 62704", customer_name: "Town Only" },
        ],
      });
      assert.equal(response.status, 201, response.text);
      // A one-line address naming only its town is an address there: geocoded like any, staged
      // where the geocoder places it, else counted as not found.
      assert.deepEqual(geocoder.asked, ["Springfield, IL 62704"]);
      assert.deepEqual(
        {
          staged: response.body.staged,
          skipped_no_address: response.body.skipped_no_address,
          skipped_geocode_failed: response.body.skipped_geocode_failed,
        },
        placesEverything
          ? { staged: 1, skipped_no_address: 2, skipped_geocode_failed: 0 }
          : { staged: 0, skipped_no_address: 2, skipped_geocode_failed: 1 },
      );
    });
  });
}
