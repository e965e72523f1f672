import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isStreetTypeWord, normalizeAddress, parseUsAddress } from "../../src/domain/address.ts";
import { keysOfSameHome, sameHome } from "../../src/domain/same-home.ts";

const SPRINGFIELD = "123 N MAIN ST #4, SPRINGFIELD IL 62701";

/** Real-world spellings of addresses, each with the key it must fold to. */
const VARIANTS: [string, string][] = [
  ["123 North Main Street Apt 4, Springfield, IL 62701", SPRINGFIELD],
  ["123 N Main St #4 Springfield IL 62701-1234", SPRINGFIELD],
  ["123 N. Main St., Apt. 4, Springfield, Illinois 62701", SPRINGFIELD],
  ["123 n main st apt #4 springfield il 627011234", SPRINGFIELD],
  ["123 NORTH MAIN STREET UNIT 4 SPRINGFIELD IL 62701", SPRINGFIELD],
  ["123 N Main Street, Suite 4, Springfield, IL 62701", SPRINGFIELD],
  ["123 N Main St Ste 4, Springfield IL 62701, USA", SPRINGFIELD],
  ["  123   N  Main   St  #4 ,  Springfield ,  IL  62701  ", SPRINGFIELD],
  ["123 North Main St Apartment 4, Springfield IL 62701 United States", SPRINGFIELD],
  ["123 N Main St # 4, Springfield, IL, 62701", SPRINGFIELD],
  ["1600 Pennsylvania Avenue NW, Washington, DC 20500", "1600 PENNSYLVANIA AVE NW, WASHINGTON DC 20500"],
  ["1600 Pennsylvania Ave. N.W., Washington DC 20500-0003", "1600 PENNSYLVANIA AVE NW, WASHINGTON DC 20500"],
  ["350 Fifth Avenue Suite 3300, New York, NY 10118", "350 5TH AVE #3300, NEW YORK NY 10118"],
  ["350 5th Ave Fl 33 New York NY 10118", "350 5TH AVE #33, NEW YORK NY 10118"],
  ["55 West 42nd Street, Floor 3, New York, NY 10036", "55 W 42ND ST #3, NEW YORK NY 10036"],
  ["10 Elm Street Ste. 200 Dallas TX 75201", "10 ELM ST #200, DALLAS TX 75201"],
  ["10 Elm St Suite 200, Dallas, Texas 75201", "10 ELM ST #200, DALLAS TX 75201"],
  ["4 Oak Road Unit 2B Austin Texas", "4 OAK RD #2B, AUSTIN TX"],
  ["4 oak rd unit 2b, austin, tx", "4 OAK RD #2B, AUSTIN TX"],
  ["12 Lake Shore Drive, Chicago IL", "12 LAKE SHORE DR, CHICAGO IL"],
  ["2500 N Lake Shore Dr Rm 12 Chicago IL 60614", "2500 N LAKE SHORE DR #12, CHICAGO IL 60614"],
  [
    "2500 North Lake Shore Drive Room 12, Chicago, IL 60614-1234",
    "2500 N LAKE SHORE DR #12, CHICAGO IL 60614",
  ],
  ["100 Main St, Lot 5, Boise ID 83702", "100 MAIN ST #5, BOISE ID 83702"],
  ["77 Mount Vernon Place, Baltimore, MD 21202", "77 MOUNT VERNON PL, BALTIMORE MD 21202"],
  ["77 Mount Vernon Pl Baltimore MD 21202", "77 MOUNT VERNON PL, BALTIMORE MD 21202"],
  ["500 S Broadway Blvd, Los Angeles, CA 90013", "500 S BROADWAY BLVD, LOS ANGELES CA 90013"],
  ["500 South Broadway Boulevard Los Angeles CA 90013", "500 S BROADWAY BLVD, LOS ANGELES CA 90013"],
  ["9 Maple Court, Madison, WI 53703", "9 MAPLE CT, MADISON WI 53703"],
  ["9 Maple Ct. Madison Wisconsin 53703", "9 MAPLE CT, MADISON WI 53703"],
  ["31 Spooner Street, Quahog, RI 02903", "31 SPOONER ST, QUAHOG RI 02903"],
  ["742 Evergreen Terrace, Springfield, OR 97477", "742 EVERGREEN TER, SPRINGFIELD OR 97477"],
  ["742 Evergreen Ter Springfield OR 97477", "742 EVERGREEN TER, SPRINGFIELD OR 97477"],
  ["8 Cherry Tree Lane, Boston, MA 02108", "8 CHERRY TREE LN, BOSTON MA 02108"],
  ["8 Cherry Tree Ln Boston MA 02108-4411", "8 CHERRY TREE LN, BOSTON MA 02108"],
  ["221 Baker Highway East, Phoenix, AZ 85004", "221 BAKER HWY E, PHOENIX AZ 85004"],
  ["221 Baker Hwy E Phoenix AZ 85004", "221 BAKER HWY E, PHOENIX AZ 85004"],
  ["45 Harbor Parkway Southwest, Seattle, WA 98101", "45 HARBOR PKWY SW, SEATTLE WA 98101"],
  ["45 Harbor Pkwy SW Seattle WA 98101", "45 HARBOR PKWY SW, SEATTLE WA 98101"],
  ["6 Sunset Circle, Reno, NV 89501", "6 SUNSET CIR, RENO NV 89501"],
  ["6 Sunset Cir. Reno NV 89501", "6 SUNSET CIR, RENO NV 89501"],
  ["12 Main St Bsmt, Boise, ID 83702", "12 MAIN ST BSMT, BOISE ID 83702"],
  ["12 Main Street Basement, Boise, ID 83702", "12 MAIN ST BSMT, BOISE ID 83702"],
  ["PO Box 123, Austin TX 78701", "PO BOX 123, AUSTIN TX 78701"],
  ["P.O. Box 123, Austin, Texas 78701-0123", "PO BOX 123, AUSTIN TX 78701"],
  ["3 Pine Way 62701", "3 PINE WAY, IL 62701"],
  ["88 Ocean Blvd", "88 OCEAN BLVD"],
  // No state written: the city and ZIP are kept and the state comes from the ZIP.
  ["50 Main St, Chicago 60601", "50 MAIN ST, CHICAGO IL 60601"],
  ["50 Main St, Chicago, 60601-1234", "50 MAIN ST, CHICAGO IL 60601"],
  ["50 Main St, Chicago, IL 60601", "50 MAIN ST, CHICAGO IL 60601"],
  ["50 Main St Apt 4, Denver, 80202", "50 MAIN ST #4, DENVER CO 80202"],
  ["50 Main St, Springfield", "50 MAIN ST, SPRINGFIELD"],
  ["PO Box 12, Chicago 60601", "PO BOX 12, CHICAGO IL 60601"],
  ["50 Main St Springfield 62704", "50 MAIN ST, SPRINGFIELD IL 62704"],
  ["3 Pine Way Springfield 62701", "3 PINE WAY, SPRINGFIELD IL 62701"],
  ["PO Box 12 Chicago 60601", "PO BOX 12, CHICAGO IL 60601"],
  ["50 Main St, Apt 4, Denver, 80202", "50 MAIN ST #4, DENVER CO 80202"],
  ["50 Main St, Apt 4, Springfield", "50 MAIN ST #4, SPRINGFIELD"],
  ["12 Broadway, Springfield 62701", "12 BROADWAY, SPRINGFIELD IL 62701"],
  // A unit after a comma stays in the street line.
  ["123 Main St, Apt 4", "123 MAIN ST #4"],
  ["123 Main St, Apt 4, 62701", "123 MAIN ST #4, IL 62701"],
  // The ZIP's own city at the end of the text marks where the street ends.
  ["1 Court Sq Long Island City 11101", "1 COURT SQ, LONG ISLAND CITY NY 11101"],
  ["50 Main St St. Louis 63101", "50 MAIN ST, SAINT LOUIS MO 63101"],
  ["50 Main St, St. Louis, MO 63101", "50 MAIN ST, SAINT LOUIS MO 63101"],
  ["100 Main St West Springfield 01089", "100 MAIN ST, WEST SPRINGFIELD MA 01089"],
  ["50 Main St, New York 10001", "50 MAIN ST, NEW YORK NY 10001"],
  ["1600 Pennsylvania Ave NW, Washington 20500", "1600 PENNSYLVANIA AVE NW, WASHINGTON DC 20500"],
  ["123 Main St, Springfield 62701, USA", "123 MAIN ST, SPRINGFIELD IL 62701"],
];

describe("address normalization", () => {
  for (const [raw, key] of VARIANTS) {
    it(`folds "${raw}"`, () => {
      assert.equal(normalizeAddress(raw), key);
    });
  }

  it("has at least 40 real-world variants", () => {
    assert.ok(VARIANTS.length >= 40);
  });

  it("gives the brief's two spellings of one address the same key", () => {
    assert.equal(
      normalizeAddress("123 North Main Street Apt 4, Springfield, IL 62701"),
      normalizeAddress("123 N Main St #4 Springfield IL 62701-1234"),
    );
  });

  it("reads accented letters as their base letters (they were dropped: PEÑASCO became PEASCO)", () => {
    assert.equal(
      normalizeAddress("1 Calle Peñasco, San José CA 95112"),
      "1 CALLE PENASCO, SAN JOSE CA 95112",
    );
    assert.equal(
      normalizeAddress("1 Calle Peñasco, San José CA 95112"),
      normalizeAddress("1 Calle Penasco, San Jose, CA 95112"),
    );
    assert.notEqual(
      normalizeAddress("1 Calle Peasco, San Jose CA 95112"),
      normalizeAddress("1 Calle Peñasco, San José CA 95112"),
    );
    assert.equal(
      normalizeAddress("１２ Main St, Austin TX 78701"),
      normalizeAddress("12 Main St, Austin TX 78701"),
    );
    assert.equal(
      normalizeAddress("9 Søren Łódź Straße, Austin TX 78701"),
      "9 SOREN LODZ STRASSE, AUSTIN TX 78701",
    );
    // A fraction is not an accent: "123½" keeps its key (NFKD made it 1231/2, another house).
    assert.equal(normalizeAddress("123½ Main St, Springfield IL 62701"), "123 MAIN ST, SPRINGFIELD IL 62701");
  });

  it("keeps letters of other scripts in the parts and the key (100 Мain St became 100 AIN ST)", () => {
    // "Мain" with a Cyrillic М: the parser matches ASCII only and dropped the letter.
    assert.equal(normalizeAddress("100 Мain St, Springfield IL 62701"), "100 МAIN ST, SPRINGFIELD IL 62701");
    for (const other of ["100 Main St, Springfield IL 62701", "100 ain St, Springfield IL 62701"]) {
      assert.notEqual(normalizeAddress("100 Мain St, Springfield IL 62701"), normalizeAddress(other), other);
    }
    assert.deepEqual(parseUsAddress("12 Йорк Ave Apt 5, New York, NY 10001"), {
      street: "12 ЙОРК AVE #5",
      city: "NEW YORK",
      state: "NY",
      zip: "10001",
      country: "US",
    });
    // Accents are removed from Latin letters only: "Й" is another letter than "И".
    assert.notEqual(
      normalizeAddress("12 Йорк Ave, New York NY 10001"),
      normalizeAddress("12 Иорк Ave, New York NY 10001"),
    );
    assert.equal(normalizeAddress("7 Οδός Αθηνάς, Chicago IL 60601"), "7 ΟΔΌΣ ΑΘΗΝΆΣ, CHICAGO IL 60601");
    assert.equal(normalizeAddress("5 हिंदी Rd, Austin TX 78701"), "5 हिंदी RD, AUSTIN TX 78701");
    assert.equal(normalizeAddress("8 東京 St Apt 東, Austin TX 78701"), "8 東京 ST #東, AUSTIN TX 78701");
    // Two streets of other scripts never share a key, in any field.
    assert.notEqual(
      normalizeAddress("8 東京 St, Austin TX 78701"),
      normalizeAddress("8 大阪 St, Austin TX 78701"),
    );
    assert.notEqual(
      normalizeAddress("8 Main St, Москва TX 78701"),
      normalizeAddress("8 Main St, Минск TX 78701"),
    );
    // A word that looks like the parser's stand-in for such words is read as written.
    assert.equal(normalizeAddress("3 QXJAAA Rd, Мир, TX 78701"), "3 QXJAAA RD, МИР TX 78701");
  });

  it("reads runs of separators as one, so the parser's backtracking cannot stall the process", () => {
    // Each of these took seconds at 60-140 characters and hours at the 500 allowed before runs
    // were collapsed; the test would not finish without the fix.
    for (const run of [" ", ".", "-", "/", "\t", "@#"]) {
      const hostile = `1${run.repeat(240)}x`;
      assert.equal(
        normalizeAddress(hostile),
        normalizeAddress(run.includes("#") ? "1 #x" : "1 x"),
        JSON.stringify(run),
      );
    }
    assert.equal(
      normalizeAddress("123  North   Main Street.,  Apt 4 ,, Springfield ,  IL   62701"),
      "123 N MAIN ST #4, SPRINGFIELD IL 62701",
    );
  });

  it("keeps a town set off by a comma, even where it ends with its ZIP's city (South Boston is 02127's Boston)", () => {
    const keys: [string, string][] = [
      ["100 Main St, South Boston, MA 02127", "100 MAIN ST, SOUTH BOSTON MA 02127"],
      ["1 Main St, East Boston, MA 02128", "1 MAIN ST, EAST BOSTON MA 02128"],
      ["5 Oak St, North Miami, FL 33161", "5 OAK ST, NORTH MIAMI FL 33161"],
      ["12 Oak St, East Los Angeles, CA 90022", "12 OAK ST, EAST LOS ANGELES CA 90022"],
      ["500 Court St, Brooklyn, NY 11231", "500 COURT ST, BROOKLYN NY 11231"],
    ];
    for (const [written, key] of keys) assert.equal(normalizeAddress(written), key, written);
    assert.ok(
      sameHome("100 MAIN ST, SOUTH BOSTON MA 02127", normalizeAddress("100 Main St, South Boston, MA")),
    );
  });

  /** One home both ways round, and an index lookup from the neighbourhood's key finds the other. */
  function assertOneHomeFoundFromNeighbourhood(neighbourhood: string, zipTown: string) {
    const [a, b] = [normalizeAddress(neighbourhood), normalizeAddress(zipTown)];
    assert.ok(sameHome(a, b) && sameHome(b, a), `${neighbourhood} | ${zipTown}`);
    assert.ok(keysOfSameHome(a).includes(b), neighbourhood);
  }

  it("is one home written with its neighbourhood or borough and with its ZIP's town, beside that ZIP", () => {
    for (const [neighbourhood, zipTown] of [
      ["6801 Hollywood Blvd, Hollywood, CA 90028", "6801 Hollywood Blvd, Los Angeles, CA 90028"],
      ["100 Main St, South Boston, MA 02127", "100 Main St, Boston, MA 02127"],
      ["500 Court St, New York, NY 11231", "500 Court St, Brooklyn, NY 11231"],
      ["12 Cambridge St, Boston, MA 02134", "12 Cambridge St, Allston, MA 02134"],
    ] as const)
      assertOneHomeFoundFromNeighbourhood(neighbourhood, zipTown);
    // Another ZIP is another home, whatever the town; so are two towns neither of them the ZIP's.
    assert.ok(
      !sameHome(
        normalizeAddress("500 Court St, Brooklyn, NY 11231"),
        normalizeAddress("500 Court St, Brooklyn, NY 11201"),
      ),
    );
    assert.ok(
      !sameHome(
        normalizeAddress("12 Cambridge St, Boston, MA 02134"),
        normalizeAddress("12 Cambridge St, Brighton, MA 02134"),
      ),
    );
    // Words of a street misread as a town ("12 N" on "Main" and on "Elm") stay two homes.
    assert.ok(!sameHome(normalizeAddress("12 N Main, IL 62704"), normalizeAddress("12 N Elm, IL 62704")));
  });

  it("is one home written with its neighbourhood and ZIP and with the ZIP's town and no ZIP", () => {
    for (const [neighbourhood, zipTown] of [
      ["6801 Hollywood Blvd, Hollywood, CA 90028", "6801 Hollywood Blvd, Los Angeles, CA"],
      ["500 Court St, New York, NY 11231", "500 Court St, Brooklyn NY"],
      ["12 Cambridge St, Boston, MA 02134", "12 Cambridge St, Allston MA"],
    ] as const)
      assertOneHomeFoundFromNeighbourhood(neighbourhood, zipTown);
    // Without its ZIP a neighbourhood could be in any of the town's ZIPs, and another town is another home.
    for (const [withZip, withoutZip] of [
      ["6801 Hollywood Blvd, Los Angeles, CA 90028", "6801 Hollywood Blvd, Hollywood, CA"],
      ["12 Cambridge St, Brighton, MA 02134", "12 Cambridge St, Boston MA"],
      ["12 Main St, Springfield, MO 65802", "12 Main St, Springfield IL"],
    ] as const) {
      assert.ok(
        !sameHome(normalizeAddress(withZip), normalizeAddress(withoutZip)),
        `${withZip} | ${withoutZip}`,
      );
    }
  });

  it("keys a town spelled two ways alike, with and without its ZIP (the ZIP table's spelling)", () => {
    const oneHome: [string, string, string][] = [
      [
        "12 Main St, Winston-Salem, NC 27101",
        "12 Main St, Winston-Salem, NC",
        "12 MAIN ST, WINSTON SALEM NC",
      ],
      [
        "1 Chain Bridge Rd, McLean, VA 22101",
        "1 Chain Bridge Rd, Mc Lean VA",
        "1 CHAIN BRIDGE RD, MC LEAN VA",
      ],
      [
        "1 Chain Bridge Rd, Mc Lean, VA 22101",
        "1 Chain Bridge Rd, McLean, VA",
        "1 CHAIN BRIDGE RD, MC LEAN VA",
      ],
      ["12 Main St, Spring field, IL 62704", "12 Main St, Springfield IL", "12 MAIN ST, SPRINGFIELD IL"],
      ["10 Market St, St. Louis, MO 63101", "10 Market St, Saint-Louis MO", "10 MARKET ST, SAINT LOUIS MO"],
    ];
    for (const [withZip, withoutZip, keyWithoutZip] of oneHome) {
      assert.equal(normalizeAddress(withoutZip), keyWithoutZip, withoutZip);
      assert.ok(
        sameHome(normalizeAddress(withZip), normalizeAddress(withoutZip)),
        `${withZip} | ${withoutZip}`,
      );
      assert.ok(keysOfSameHome(normalizeAddress(withoutZip)).includes(normalizeAddress(withZip)), withoutZip);
    }
    // The town as written, never its ZIP's: the same text is one home with and without its ZIP,
    // and with or without its state.
    for (const [withZip, other] of [
      ["12 Cambridge St, Boston, MA 02134", "12 Cambridge St, Boston, MA"],
      ["500 Court St, New York, NY 11231", "500 Court St, New York NY"],
      ["12 Main St, Winston-Salem, NC 27101", "12 Main St, Winston-Salem"],
      ["1 Chain Bridge Rd, McLean, VA 22101", "1 Chain Bridge Rd, McLean"],
      ["5 Elm St, Boston, MA 02134", "5 Elm St, Boston"],
    ] as const) {
      assert.ok(sameHome(normalizeAddress(withZip), normalizeAddress(other)), `${withZip} | ${other}`);
    }
    assert.equal(normalizeAddress("12 Cambridge St, Boston, MA 02134"), "12 CAMBRIDGE ST, BOSTON MA 02134");
  });

  it("keeps different delivery points apart", () => {
    const base = normalizeAddress("123 N Main St #4 Springfield IL 62701");
    for (const other of [
      "123 S Main St #4 Springfield IL 62701",
      "123 N Main St #5 Springfield IL 62701",
      "125 N Main St #4 Springfield IL 62701",
      "123 N Main Ave #4 Springfield IL 62701",
      "123 N Main St #4 Springfield IL 62702",
      "123 N Main St Springfield IL 62701",
    ]) {
      assert.notEqual(normalizeAddress(other), base, other);
    }
  });

  it("splits an address into parts with ZIP5 and the state completed from the ZIP", () => {
    assert.deepEqual(parseUsAddress("123 North Main Street Apt 4, Springfield, IL 62701-1234"), {
      street: "123 N MAIN ST #4",
      city: "SPRINGFIELD",
      state: "IL",
      zip: "62701",
      country: "US",
    });
    assert.equal(parseUsAddress("3 Pine Way 62701").state, "IL");
  });

  it("never reads a street type as the city of an address that names none", () => {
    for (const [raw, street] of [
      ["12 Main Street, TX", "12 MAIN ST"],
      ["9 Pine Rd, CO", "9 PINE RD"],
      ["12 Main Street TX", "12 MAIN ST"],
      ["12 Main Street, TX 73301", "12 MAIN ST"],
    ]) {
      const parts = parseUsAddress(raw!);
      assert.deepEqual([parts.street, parts.city], [street, ""], raw);
    }
    assert.equal(parseUsAddress("9 Pine Rd, Denver, CO").city, "DENVER");
    assert.equal(parseUsAddress("742 Evergreen Terrace Springfield IL").city, "SPRINGFIELD");
  });

  it("reads a street type written after another as the street's, not as the city (40 MILL CRK, RD IL)", () => {
    const full = normalizeAddress("40 Mill Creek Rd, Springfield, IL 62704");
    assert.equal(full, "40 MILL CREEK RD, SPRINGFIELD IL 62704");
    for (const [raw, key] of [
      ["40 Mill Creek Rd, 62704", "40 MILL CREEK RD, IL 62704"],
      ["40 Mill Creek Rd 62704", "40 MILL CREEK RD, IL 62704"],
      ["40 Mill Creek Rd IL 62704", "40 MILL CREEK RD, IL 62704"],
      ["40 Mill Creek Rd, IL 62704", "40 MILL CREEK RD, IL 62704"],
      ["40 mill creek rd., 62704", "40 MILL CREEK RD, IL 62704"],
      ["40 Mill Creek Road, 62704", "40 MILL CREEK RD, IL 62704"],
    ]) {
      assert.equal(normalizeAddress(raw!), key, raw);
      assert.ok(sameHome(normalizeAddress(raw!), full), raw);
      assert.equal(normalizeAddress(key!), key, `${key} normalizes to itself`);
    }
    assert.equal(normalizeAddress("40 Mill Creek Rd Apt 4, 62704"), "40 MILL CREEK RD #4, IL 62704");
    // A street with a state alone is no one home (sameHome never matches it), but its street is read the same.
    assert.equal(normalizeAddress("40 Mill Creek Rd, IL"), "40 MILL CREEK RD, IL");
  });

  it("keeps a town named like a street type as the city", () => {
    for (const [raw, key] of [
      // The ZIP's own city.
      ["12 Oak St Center TX 75935", "12 OAK ST, CENTER TX 75935"],
      ["12 Oak St, 75935", "12 OAK ST, TX 75935"],
      // A town of the state, with no ZIP or another town's.
      ["12 Oak St Center TX", "12 OAK ST, CENTER TX"],
      ["12 Oak St Center TX 77001", "12 OAK ST, CENTER TX 77001"],
      // Set off by a comma, a city whatever its name.
      ["12 Oak St, Center, TX", "12 OAK ST, CENTER TX"],
      ["40 Mill Creek, Rd IL 62704", "40 MILL CRK, RD IL 62704"],
    ]) {
      assert.equal(normalizeAddress(raw!), key, raw);
    }
  });

  it("knows the parser's street type words", () => {
    for (const word of ["Rd", "road", "CRK", "Creek", "Center", "Ave", "Av"])
      assert.ok(isStreetTypeWord(word), word);
    for (const word of ["Springfield", "N", "Apt", "IL", "St.", ""]) assert.ok(!isStreetTypeWord(word), word);
  });

  it("folds text the parser cannot read as a whole, case and punctuation removed", () => {
    assert.equal(normalizeAddress("  the old mill, behind the church "), "THE OLD MILL BEHIND THE CHURCH");
    assert.deepEqual(parseUsAddress("the old mill"), {
      street: "THE OLD MILL",
      city: "",
      state: "",
      zip: "",
      country: "US",
    });
  });

  it("is idempotent on complete addresses: such a key normalizes to itself", () => {
    const complete = VARIANTS.filter(([, key]) => /, [A-Z ]+ [A-Z]{2}( \d{5})?$/.test(key));
    assert.ok(complete.length >= 35);
    for (const [, key] of complete) assert.equal(normalizeAddress(key), key, key);
  });
});
