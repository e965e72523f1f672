import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { normalizeAddress, parseUsAddress } from "../../src/domain/address.ts";
import { sameHome } from "../../src/domain/same-home.ts";

/**
 * Homes written in full, chosen where the parser misread a shorter form: street types that are
 * also words of a name (Mill, Park, Creek) or state codes (Ct is Connecticut, Way Wyoming, Ln
 * Louisiana, Key Kentucky, Mt Montana), directions before and after the street, units, a PO box.
 */
const HOMES: { street: string; city: string; state: string; zip: string; stateName: string }[] = [
  { street: "40 N Mill Creek Rd", city: "Springfield", state: "IL", zip: "62704", stateName: "Illinois" },
  { street: "40 Mill Creek Rd", city: "Springfield", state: "IL", zip: "62704", stateName: "Illinois" },
  {
    street: "40 N Mill Creek Rd Apt 2",
    city: "Springfield",
    state: "IL",
    zip: "62704",
    stateName: "Illinois",
  },
  { street: "40 Mill Creek Ct", city: "Avon", state: "CT", zip: "06001", stateName: "Connecticut" },
  { street: "700 Mill Creek Ct Unit 4", city: "Avon", state: "CT", zip: "06001", stateName: "Connecticut" },
  { street: "5 Pine Ct Apt 2", city: "Avon", state: "CT", zip: "06001", stateName: "Connecticut" },
  { street: "66 N Court St", city: "Avon", state: "CT", zip: "06001", stateName: "Connecticut" },
  { street: "12 Court St", city: "Springfield", state: "IL", zip: "62704", stateName: "Illinois" },
  { street: "12 Court St Apt 2", city: "Boston", state: "MA", zip: "02108", stateName: "Massachusetts" },
  { street: "11 Court Ct", city: "Springfield", state: "IL", zip: "62704", stateName: "Illinois" },
  { street: "7 Main St W", city: "Springfield", state: "IL", zip: "62704", stateName: "Illinois" },
  { street: "300 Main St W #5", city: "Boise", state: "ID", zip: "83702", stateName: "Idaho" },
  { street: "19 Park Ave N", city: "Seattle", state: "WA", zip: "98101", stateName: "Washington" },
  { street: "45 Harbor Pkwy SW", city: "Seattle", state: "WA", zip: "98101", stateName: "Washington" },
  { street: "9 Park Ln", city: "Austin", state: "TX", zip: "78701", stateName: "Texas" },
  { street: "15 N Park Ave Apt 2", city: "Austin", state: "TX", zip: "78701", stateName: "Texas" },
  { street: "8 W Park Ave", city: "Denver", state: "CO", zip: "80202", stateName: "Colorado" },
  { street: "12 Main St Unit 5", city: "Denver", state: "CO", zip: "80202", stateName: "Colorado" },
  { street: "10 S Park St", city: "Madison", state: "WI", zip: "53703", stateName: "Wisconsin" },
  { street: "400 E Mill St", city: "Madison", state: "WI", zip: "53703", stateName: "Wisconsin" },
  { street: "1 Park", city: "Springfield", state: "IL", zip: "62704", stateName: "Illinois" },
  { street: "14 Way Ct", city: "Cheyenne", state: "WY", zip: "82001", stateName: "Wyoming" },
  { street: "3 River Rd", city: "Cheyenne", state: "WY", zip: "82001", stateName: "Wyoming" },
  { street: "21 Oak Ln Apt 3", city: "Lafayette", state: "LA", zip: "70501", stateName: "Louisiana" },
  { street: "9 Mill St Ste 100", city: "Louisville", state: "KY", zip: "40202", stateName: "Kentucky" },
  { street: "2 Mountain View Ln", city: "Helena", state: "MT", zip: "59601", stateName: "Montana" },
  { street: "22 Mill St", city: "Dallas", state: "TX", zip: "75201", stateName: "Texas" },
  { street: "6 Mill Pond Way", city: "Portland", state: "ME", zip: "04101", stateName: "Maine" },
  { street: "9 Va Ct", city: "Richmond", state: "VA", zip: "23219", stateName: "Virginia" },
  { street: "12 Main St Bsmt", city: "Boise", state: "ID", zip: "83702", stateName: "Idaho" },
  { street: "30 E Main St Apt 2B", city: "Madison", state: "WI", zip: "53703", stateName: "Wisconsin" },
  { street: "12 Broadway", city: "Springfield", state: "IL", zip: "62701", stateName: "Illinois" },
  { street: "PO Box 123", city: "Austin", state: "TX", zip: "78701", stateName: "Texas" },
];

type Home = (typeof HOMES)[number];

/** The shorter forms CRMs and forms send for a home, by what they leave out. */
const WEAKER_FORMS: [string, (home: Home) => string][] = [
  ["no city", (h) => `${h.street}, ${h.state} ${h.zip}`],
  ["no city, no comma", (h) => `${h.street} ${h.state} ${h.zip}`],
  ["no city, the state in full", (h) => `${h.street}, ${h.stateName} ${h.zip}`],
  ["no state", (h) => `${h.street}, ${h.city} ${h.zip}`],
  ["no state, no comma", (h) => `${h.street} ${h.city} ${h.zip}`],
  ["ZIP only", (h) => `${h.street}, ${h.zip}`],
  ["ZIP only, no comma", (h) => `${h.street} ${h.zip}`],
  ["no comma at all", (h) => `${h.street} ${h.city} ${h.state} ${h.zip}`],
  ["no ZIP", (h) => `${h.street}, ${h.city}, ${h.state}`],
  ["no ZIP, no comma", (h) => `${h.street} ${h.city} ${h.state}`],
  ["the town alone", (h) => `${h.street}, ${h.city}`],
];

const fullForm = (home: Home) => `${home.street}, ${home.city}, ${home.state} ${home.zip}`;

describe("a home written without its city or state keys as the same home as its full form", () => {
  for (const home of HOMES) {
    for (const [leftOut, weaker] of WEAKER_FORMS) {
      const text = weaker(home);
      it(`${fullForm(home)}: ${leftOut} ("${text}")`, () => {
        const full = parseUsAddress(fullForm(home));
        const key = normalizeAddress(text);
        assert.equal(parseUsAddress(text).street, full.street, "the street line is kept whole");
        assert.ok(sameHome(key, normalizeAddress(fullForm(home))), `${key} is the home of ${fullForm(home)}`);
        assert.equal(normalizeAddress(key), key, "the key normalizes to itself");
      });
    }
  }

  it("keys the forms that were misread as the full form's street with the ZIP's state", () => {
    for (const [text, key] of [
      ["40 N Mill Creek Rd, 62704", "40 N MILL CREEK RD, IL 62704"],
      ["40 Mill Creek Rd, 62704", "40 MILL CREEK RD, IL 62704"],
      ["40 Mill Creek Ct, CT 06001", "40 MILL CREEK CT, CT 06001"],
      ["40 Mill Creek Ct CT 06001", "40 MILL CREEK CT, CT 06001"],
      ["40 Mill Creek Ct, Avon, CT 06001", "40 MILL CREEK CT, AVON CT 06001"],
      ["7 Main St W, 62704", "7 MAIN ST W, IL 62704"],
      ["15 N Park Ave Apt 2, TX 78701", "15 N PARK AVE #2, TX 78701"],
      ["3 River Rd Cheyenne WY 82001", "3 RIVER RD, CHEYENNE WY 82001"],
      ["40 N Mill Creek Rd Springfield IL", "40 N MILL CREEK RD, SPRINGFIELD IL"],
      ["8 W Park Ave Denver CO", "8 W PARK AVE, DENVER CO"],
    ]) {
      assert.equal(normalizeAddress(text!), key, text);
    }
  });

  it("reads a state code written after a street that could end with it as the street's type", () => {
    // "Ct" is Court or Connecticut: after "Creek" (a name's word too) it is the street's.
    assert.equal(normalizeAddress("40 Mill Creek Ct 06001"), "40 MILL CREEK CT, CT 06001");
    assert.equal(normalizeAddress("40 Mill Creek, CT 06001"), "40 MILL CRK, CT 06001");
  });

  it("keeps different streets apart", () => {
    assert.notEqual(normalizeAddress("7 Main St W, 62704"), normalizeAddress("7 Main St, 62704"));
    assert.notEqual(normalizeAddress("8 W Park Ave, 80202"), normalizeAddress("8 W Park, 80202"));
    assert.notEqual(
      normalizeAddress("15 N Park Ave Apt 2, TX 78701"),
      normalizeAddress("15 N Park Ave, TX 78701"),
    );
  });
});
