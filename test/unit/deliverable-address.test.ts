import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mailAddressOf, parseUsAddress, uspsStateCode } from "../../src/domain/address.ts";
import {
  type AddressProblem,
  checkAddressOffline,
  offlineAddressProblems,
  printedPartsOf,
  streetAsWritten,
  townAsZipSpellsIt,
  type VerificationLevel,
  type WrittenAddress,
  writtenAddressOf,
} from "../../src/domain/deliverable-address.ts";

const LEVELS: VerificationLevel[] = ["strict", "normal", "relaxed"];
const check = (line: string, level: VerificationLevel) =>
  checkAddressOffline(writtenAddressOf(line, {}), level);
const reasonOf = (line: string, level: VerificationLevel) => {
  const result = check(line, level);
  return result.deliverable ? undefined : result.reason;
};

describe("the offline address check before print", () => {
  test("the issue's three addresses fail at every level, each with its reason in words", () => {
    for (const level of LEVELS) {
      const nothing = reasonOf("asdf, qwerty", level);
      assert.ok(nothing, `asdf, qwerty passed at ${level}`);
      assert.match(nothing, /no ZIP/);
      const imaginary = reasonOf("99999 Imaginary Pkwy, Notacity, ZZ 00000", level);
      assert.ok(imaginary, `the imaginary address passed at ${level}`);
      assert.match(imaginary, /ZZ is not a US state code/);
      assert.match(imaginary, /ZIP 00000 does not exist/);
      assert.equal(reasonOf("12 Main St, Austin, TX 10001", level), "ZIP 10001 is in NY, not TX");
    }
    assert.match(reasonOf("asdf, qwerty", "normal")!, /the street "asdf" has no house number/);
  });

  test("a state written as its name, or a code in lower case, is read as its USPS code", () => {
    const parts = { street: "70 Cedar Ln", city: "Springfield", zip: "62704" };
    for (const state of ["Illinois", "ILLINOIS", " illinois ", "il", "IL"]) {
      const written = writtenAddressOf("70 Cedar Ln", { ...parts, state });
      assert.equal(written.state, "IL", state);
      for (const level of LEVELS)
        assert.deepEqual(checkAddressOffline(written, level), { deliverable: true });
    }
    assert.equal(writtenAddressOf("9 Main St", { state: "new  york", zip: "10118" }).state, "NY");
    assert.equal(writtenAddressOf("9 Main St", { state: "District of Columbia" }).state, "DC");
    // Not a state's name: kept as written, and refused in words.
    const unknown = checkAddressOffline(
      writtenAddressOf("70 Cedar Ln", { ...parts, state: "Ill." }),
      "normal",
    );
    assert.deepEqual(unknown, { deliverable: false, reason: "ILL. is not a US state code" });
    assert.deepEqual(
      mailAddressOf({ ...parts, state: "Illinois" }),
      {
        line: "70 Cedar Ln, Springfield, IL 62704",
        parts: { street: "70 Cedar Ln", city: "Springfield", state: "IL", zip: "62704" },
      },
      "the card prints the code",
    );
    assert.equal(uspsStateCode("Texas"), "TX");
    assert.equal(uspsStateCode("  "), undefined);
  });

  test("a real address passes at every level, written in one line or in parts", () => {
    for (const level of LEVELS) {
      assert.deepEqual(check("412 Maple Ave, Springfield, IL 62704", level), { deliverable: true });
      assert.deepEqual(check("350 5th Ave, New York, NY 10118-0110", level), { deliverable: true });
      // A Wisconsin grid address's house number is letters and digits.
      assert.deepEqual(
        checkAddressOffline(
          writtenAddressOf("", { street: "N64W23760 Main St", city: "Sussex", state: "WI", zip: "53089" }),
          level,
        ),
        { deliverable: true },
      );
      assert.deepEqual(
        checkAddressOffline(
          writtenAddressOf("", { street: "100 Congress Ave", city: "Austin", state: "TX", zip: "78701" }),
          level,
        ),
        { deliverable: true },
      );
    }
  });

  test("an ordinal street or a number alone is not a house number on a street (normal and strict)", () => {
    const inParts = (street: string, level: VerificationLevel) =>
      checkAddressOffline(
        writtenAddressOf("", { street, city: "Springfield", state: "IL", zip: "62704" }),
        level,
      );
    for (const street of ["1st Ave", "42nd Street", "3rd Floor", "12", "7"]) {
      for (const level of ["normal", "strict"] as const) {
        const result = inParts(street, level);
        assert.equal(result.deliverable, false, `${street} passed at ${level}`);
        assert.match(result.deliverable ? "" : result.reason, /has no house number/);
      }
      assert.deepEqual(inParts(street, "relaxed"), { deliverable: true }, `${street} at relaxed`);
    }
    for (const street of ["12A Main St", "12-14 Main St", "1 1st Ave", "123 1/2 Oak St"]) {
      assert.deepEqual(inParts(street, "strict"), { deliverable: true }, street);
    }
  });

  const table: { line: string; strict: boolean; normal: boolean; relaxed: boolean; why: string }[] = [
    // The ZIP alone decides where no city is written.
    { line: "412 Maple Ave, IL 62704", strict: true, normal: true, relaxed: true, why: "no city" },
    // Another known town of the ZIP's state, far from it: a wrong address, except at relaxed.
    { line: "100 Main St, Austin, TX 75201", strict: false, normal: false, relaxed: true, why: "Dallas ZIP" },
    // A known town beside the ZIP, the city's name for its neighbourhood's ZIP: only strict refuses it.
    {
      line: "12 Oak St, Boston, MA 02134",
      strict: false,
      normal: true,
      relaxed: true,
      why: "Allston ZIP",
    },
    // A name the ZIP table does not know (a neighbourhood): only strict refuses it.
    {
      line: "100 Main St, Zzyzxville, TX 78701",
      strict: false,
      normal: true,
      relaxed: true,
      why: "unknown place",
    },
    // No ZIP: a known city and state find one, except at strict.
    { line: "100 Congress Ave, Austin, TX", strict: false, normal: true, relaxed: true, why: "no ZIP" },
    // No house number: relaxed lets the ZIP decide.
    {
      line: "Maple Ave, Springfield, IL 62704",
      strict: false,
      normal: false,
      relaxed: true,
      why: "no number",
    },
    { line: "PO Box 12, Springfield, IL 62704", strict: true, normal: true, relaxed: true, why: "PO box" },
  ];
  for (const row of table) {
    test(`levels decide "${row.line}" (${row.why})`, () => {
      for (const level of LEVELS) {
        assert.equal(
          check(row.line, level).deliverable,
          row[level],
          `${level}: ${reasonOf(row.line, level)}`,
        );
      }
    });
  }

  test("the state written is read from the line even where the parser takes the ZIP's own", () => {
    assert.deepEqual(writtenAddressOf("12 Main St, Austin, TX 10001", {}), {
      street: "12 MAIN ST",
      city: "Austin",
      state: "TX",
      zip: "10001",
    });
  });

  test("reads the same city, state and ZIP as the one regular expression it replaced, which took cubic time", () => {
    const ONE_EXPRESSION = /,\s*(?:([^,]+?)[\s,]+)?([A-Za-z]{2})\.?[\s,]+(\d{5})(?:-\d{4})?\s*$/;
    const trimmed = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);
    const tokens = [
      ",",
      ", ",
      " ",
      "  ",
      "\t",
      ",,",
      ".",
      "-",
      "TX",
      "tx",
      "IL.",
      "a",
      "ab",
      "Rd",
      "1",
      "10001",
    ];
    const words = ["Austin", "New York", "10001-1234", "12 Main St", "NY 10001", "62704"];
    let seed = 7;
    const pick = <T>(items: T[]) => {
      seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
      return items[seed % items.length] as T;
    };
    for (let line = 0; line < 3000; line++) {
      const text = Array.from({ length: 2 + (line % 8) }, () => pick([...tokens, ...words])).join("");
      const tail = text.match(ONE_EXPRESSION);
      const parsed = parseUsAddress(text);
      const { street: _street, ...parts } = writtenAddressOf(text, {});
      assert.deepEqual(
        parts,
        {
          city: trimmed(tail?.[1]) ?? trimmed(parsed.city),
          state: trimmed(tail?.[2]) ?? trimmed(parsed.state),
          zip: trimmed(tail?.[3]) ?? trimmed(parsed.zip),
        },
        JSON.stringify(text),
      );
    }
  });

  test("a street's last word is never read as the state: a line with only a ZIP after the street passes", () => {
    const written = writtenAddressOf("2004 Pine Rd, 60601", { street: "2004 Pine Rd", zip: "60601" });
    assert.notEqual(written.state, "Rd");
    assert.deepEqual(checkAddressOffline(written, "normal"), { deliverable: true });
    assert.deepEqual(checkAddressOffline(writtenAddressOf("12 Main St, TX 10001", {}), "normal"), {
      deliverable: false,
      reason: "ZIP 10001 is in NY, not TX",
    });
  });

  test("each problem names the part of the address to correct, and the card's reason joins their words", () => {
    const SPRINGFIELD = { street: "412 Maple Ave", city: "Springfield", state: "IL", zip: "62704" };
    const cases: [WrittenAddress, VerificationLevel, AddressProblem[]][] = [
      [
        { ...SPRINGFIELD, street: undefined },
        "normal",
        [{ part: "street", words: "the address has no street" }],
      ],
      [
        { ...SPRINGFIELD, street: "Maple Ave" },
        "normal",
        [{ part: "street", words: 'the street "Maple Ave" has no house number' }],
      ],
      [
        { ...SPRINGFIELD, state: "Illinois" },
        "normal",
        [{ part: "state", words: "ILLINOIS is not a US state code" }],
      ],
      [{ ...SPRINGFIELD, zip: "00000" }, "normal", [{ part: "zip", words: "ZIP 00000 does not exist" }]],
      [{ ...SPRINGFIELD, zip: undefined }, "strict", [{ part: "zip", words: "the address has no ZIP" }]],
      [
        { street: "412 Maple Ave", zip: undefined },
        "normal",
        [{ part: "zip", words: "the address has no ZIP, and no city and state to find one" }],
      ],
      [
        { ...SPRINGFIELD, city: "Zzyzxville", zip: undefined },
        "normal",
        [{ part: "zip", words: "there is no Zzyzxville in IL, and no ZIP" }],
      ],
      [{ ...SPRINGFIELD, state: "TX" }, "normal", [{ part: "zip", words: "ZIP 62704 is in IL, not TX" }]],
      [
        { street: "100 Main St", city: "Austin", state: "TX", zip: "75201" },
        "normal",
        [{ part: "zip", words: "ZIP 75201 is in Dallas, not Austin" }],
      ],
    ];
    for (const [address, level, problems] of cases) {
      assert.deepEqual(offlineAddressProblems(address, level), problems, JSON.stringify(address));
    }
    assert.deepEqual(offlineAddressProblems({ ...SPRINGFIELD, state: "ZZ", zip: "00000" }, "normal"), [
      { part: "state", words: "ZZ is not a US state code" },
      { part: "zip", words: "ZIP 00000 does not exist" },
    ]);
    assert.deepEqual(checkAddressOffline({ ...SPRINGFIELD, state: "ZZ", zip: "00000" }, "normal"), {
      deliverable: false,
      reason: "ZZ is not a US state code; ZIP 00000 does not exist",
    });
  });
});

describe("house numbers and street lines no carrier delivers to", () => {
  const inParts = (street: string, level: VerificationLevel, zip = "78701") =>
    checkAddressOffline(writtenAddressOf("", { street, city: "Austin", state: "TX", zip }), level);

  test("a house number of zeros or of more than six digits is refused in words (normal and strict)", () => {
    for (const level of ["normal", "strict"] as const) {
      for (const [street, number] of [
        ["0 Congress Ave", "0"],
        ["00000 Congress Ave", "00000"],
        ["123456789 Congress Ave", "123456789"],
        ["99999999999999999999 Main St", "99999999999999999999"],
      ]) {
        assert.deepEqual(
          inParts(street!, level),
          { deliverable: false, reason: `the house number ${number} is not a real house number` },
          `${street} at ${level}`,
        );
      }
      for (const street of [
        "100 Congress Ave",
        "999999 Congress Ave",
        "10 Congress Ave",
        "12-14 Congress Ave",
      ]) {
        assert.deepEqual(inParts(street, level), { deliverable: true }, `${street} at ${level}`);
      }
    }
  });

  test("a street line naming another ZIP than the address's is refused; the same ZIP passes", () => {
    for (const level of LEVELS) {
      assert.deepEqual(inParts("1703 Oak St, Dallas TX 75201", level), {
        deliverable: false,
        reason: 'the street "1703 Oak St, Dallas TX 75201" names ZIP 75201, but the address\'s ZIP is 78701',
      });
      assert.deepEqual(inParts("1703 Oak St, Austin, TX 78701-1234", level), { deliverable: true });
      assert.deepEqual(inParts("1703 Oak St Apt 12345", level), { deliverable: true }, "a unit is no ZIP");
      assert.deepEqual(inParts("1703 Oak St, Suite 10200", level), { deliverable: true }, "nor a suite");
      assert.deepEqual(inParts("1703 Oak St, Unit 12345", level), { deliverable: true });
    }
  });
});

describe("a one-line address read for print", () => {
  test("the street prints as written (units joined), the town as its ZIP spells it", () => {
    const printed = printedPartsOf("412 Maple Ave, Apt 3, springfield, IL 62704");
    assert.equal(printed.street, "412 Maple Ave Apt 3");
    assert.equal(printed.city, "Springfield");
    assert.deepEqual([printed.state, printed.zip], ["IL", "62704"]);
    assert.equal(streetAsWritten("412 N. Maple Avenue, Springfield, IL 62704"), "412 N. Maple Avenue");
    assert.equal(streetAsWritten("PO Box 12, Springfield, IL 62701"), "PO Box 12");
    // A county or a second town before the state is not the street's; units are.
    assert.equal(streetAsWritten("412 Maple Ave, Springfield, Sangamon County, IL 62704"), "412 Maple Ave");
    assert.equal(
      streetAsWritten("412 Maple Ave, Unit B, Springfield, Sangamon County, IL 62704"),
      "412 Maple Ave Unit B",
    );
    assert.equal(streetAsWritten("412 Maple Ave, #4, Springfield, IL 62704"), "412 Maple Ave #4");
  });

  test("a name before the street, or a line without its state and ZIP, keeps the parser's reading", () => {
    assert.equal(streetAsWritten("Jane Smith, 412 Maple Ave, Springfield, IL 62704"), undefined);
    assert.equal(streetAsWritten("412 Maple Ave, Springfield"), undefined);
    assert.equal(printedPartsOf("412 Maple Ave Springfield IL 62704").street, "412 MAPLE AVE");
    assert.equal(
      townAsZipSpellsIt("CHICAGO", "62704"),
      "CHICAGO",
      "another place than the ZIP's stays as written",
    );
  });
});
