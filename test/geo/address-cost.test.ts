import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import parser from "parse-address";
import { MAX_PARSED_WORDS, normalizeAddress, parseUsAddress } from "../../src/domain/address.ts";

/**
 * parse-address's patterns backtrack polynomially in the words of the text they read (the work
 * of one call grows with about the cube of its words), so the cost of normalizing an address is
 * bounded by bounding what reaches them: how many calls one address makes, and the words each
 * call reads. This spy on the library (the outside world, not our code) records both; no clock.
 */
interface ParserWork {
  calls: number;
  typeLookups: number;
  mostWords: number;
  charsRead: number;
  intersections: number;
}

const INTERSECTION_WORD = /\band\b|\bat\b|[&@]/i;

/** How the street-type table asks the parser about one word (address.ts streetTypeOf), once per word. */
const TYPE_LOOKUP = /^1 Main [A-Z]+$/;

function workOf(normalize: () => void): ParserWork {
  const original = parser.parseLocation;
  const work: ParserWork = { calls: 0, typeLookups: 0, mostWords: 0, charsRead: 0, intersections: 0 };
  parser.parseLocation = (text: string) => {
    if (TYPE_LOOKUP.test(text)) work.typeLookups++;
    else work.calls++;
    work.charsRead += text.length;
    work.mostWords = Math.max(work.mostWords, text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0);
    if (INTERSECTION_WORD.test(text)) work.intersections++;
    return original(text);
  };
  try {
    normalize();
  } finally {
    parser.parseLocation = original;
  }
  return work;
}

/**
 * Calls one address may make: the parse, and the re-readings of its city, ZIP and locality. The
 * street-type table's lookups come aside: three words each, cached, at most one per distinct word.
 */
const MAX_CALLS = 5;

const distinctWords = (raw: string) => new Set(raw.toUpperCase().match(/[A-Z]+/g) ?? []).size;

function assertBounded(work: ParserWork, raw: string): void {
  assert.ok(work.calls <= MAX_CALLS, `${work.calls} parser calls for ${JSON.stringify(raw)}`);
  assert.ok(
    work.typeLookups <= distinctWords(raw),
    `${work.typeLookups} type lookups: ${JSON.stringify(raw)}`,
  );
  assert.ok(work.mostWords <= MAX_PARSED_WORDS, `${work.mostWords} words read: ${JSON.stringify(raw)}`);
  assert.equal(work.intersections, 0, `the intersection pattern ran on ${JSON.stringify(raw)}`);
  // Linear in the input: each call reads at most the text (plus a state and ZIP appended).
  const lookupChars = work.typeLookups * "1 Main ".length + raw.length;
  assert.ok(work.charsRead <= MAX_CALLS * (raw.length + 16) + lookupChars, `${work.charsRead} chars read`);
}

const STREET_WORDS = [
  "St",
  "Street",
  "Ave",
  "Rd",
  "Way",
  "Ct",
  "Blvd",
  "Hwy",
  "Park",
  "Pl",
  "Terrace",
  "Main",
];
const DIRECTIONS = ["N", "S", "E", "W", "NW", "SE", "North", "N.W."];
const UNIT_MARKERS = ["Apt", "Unit", "Ste", "Suite", "#", "Fl", "Rm", "Lot", "Rear", "PO Box", "Bldg"];
const LOCALITY = ["Springfield", "New York", "IL", "CA", "DC", "TX", "Washington", "USA", "Saint"];
const CORNERS = ["and", "at", "&", "@"];
const SEPARATORS = [" ", " ", " ", ", ", ".", "-", "/", " # ", " , ", "\t", ",,"];

const word = fc.oneof(
  fc.constantFrom(...STREET_WORDS, ...DIRECTIONS, ...UNIT_MARKERS, ...LOCALITY, ...CORNERS),
  fc.integer({ min: 0, max: 99999 }).map(String),
  fc.constantFrom("1/2", "62701", "62701-1234", "4B"),
);
const piece = fc.tuple(word, fc.constantFrom(...SEPARATORS)).map(([text, separator]) => text + separator);

/** Addresses up to the 500 characters an address field allows: free-form, or a repeated motif. */
const hostileAddress = fc
  .oneof(
    fc.array(piece, { minLength: 1, maxLength: 120 }).map((pieces) => pieces.join("")),
    fc
      .tuple(fc.array(piece, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 160 }))
      .map(([motif, times]) => motif.join("").repeat(times)),
  )
  .chain((body) =>
    fc
      .tuple(fc.constantFrom("", "12 ", "1600 ", "N123W4567 "), fc.integer({ min: 1, max: 500 }))
      .map(([number, length]) => (number + body).slice(0, length)),
  );

describe("address parsing cost", () => {
  it('reads "12 " + "St and " × 80 without running the intersection pattern (it took 0.3 s a parse)', () => {
    const hostile = `12 ${"St and ".repeat(80)}`.slice(0, 500);
    const work = workOf(() => normalizeAddress(hostile));
    assertBounded(work, hostile);
    // An intersection never was a delivery point: the text is folded as a whole, as before.
    assert.equal(normalizeAddress(hostile), hostile.toUpperCase().trim());
  });

  it("folds text with more words than an address has as a whole, without parsing it", () => {
    const hostile = `12 ${"N St ".repeat(100)}`.slice(0, 500);
    const work = workOf(() => normalizeAddress(hostile));
    assert.equal(work.calls, 0);
    assert.equal(normalizeAddress(hostile), hostile.toUpperCase().trim());
  });

  it("folds 500 characters of glued digits and unit words without a parser call (25-170 ms a call before)", () => {
    // Found by a mutation fuzzer in a security probe: runs of digits no address has, glued to unit,
    // street-type and state words, which the parser's number, fraction and street patterns split
    // every way against each other.
    const glued = [
      `${"1111111111162704".repeat(8)}-#11111IL162704R ad#St Fl Ste111SRoad11-tadRoad11111116Box2704`,
      `12 ${"Ste111SRoad11".repeat(3)} Main St, Springfield, IL 62704`,
      `12 ${"Kleinfeltersville".repeat(2)} Rd, Springfield, IL 62704`,
    ];
    for (const raw of glued) {
      const work = workOf(() => normalizeAddress(raw));
      assert.equal(work.calls, 0, `${work.calls} parser calls for ${JSON.stringify(raw)}`);
    }
  });

  it("still parses the longest words and numbers real addresses have", () => {
    for (const [raw, key] of [
      ["W156N12345 Main St, Menomonee Falls, WI 53051", "W156N12345 MAIN ST, MENOMONEE FALLS WI 53051"],
      ["1 Main St, Springfield, IL 627041234", "1 MAIN ST, SPRINGFIELD IL 62704"],
      [
        "123456 Kleinfeltersville Rd, Kleinfeltersville, PA 17039",
        "123456 KLEINFELTERSVILLE RD, KLEINFELTERSVILLE PA 17039",
      ],
    ]) {
      assert.equal(normalizeAddress(raw as string), key);
    }
  });

  it("re-reads a street type taken for the town a bounded number of times, however often it repeats", () => {
    for (const raw of [
      "N123W4567 Ct Ct Ct Ct Ct Ct",
      `40 Mill Creek ${"Rd ".repeat(12)}IL 62704`,
      // Five calls, and the table's first lookups of three street types (CI, seed 1633549577).
      "1600 Blvd.57971,,Terrace\tHwy St 62701 ",
    ]) {
      assertBounded(
        workOf(() => normalizeAddress(raw)),
        raw,
      );
    }
  });

  it("re-reads a town after a street without a type within the calls an address may make", () => {
    for (const raw of [
      "100 Broadway, Long Beach, CA 90802",
      "100 Broadway Long Beach CA 90802",
      "7 Via Roma Newport Beach CA",
      "20 Calle Ocho Coral Gables FL 33134",
      `20 Calle ${"Ocho ".repeat(18)}Coral Gables FL 33134`,
    ]) {
      assertBounded(
        workOf(() => normalizeAddress(raw)),
        raw,
      );
    }
  });

  it("still parses long real addresses (20 words)", () => {
    const long =
      "123 North Martin Luther King Junior Memorial Boulevard Southwest Building 4, Rancho Santa Margarita, CA 92688-1234";
    assert.deepEqual(parseUsAddress(long), {
      street: "123 N MARTIN LUTHER KING JUNIOR MEMORIAL BLVD SW #4",
      city: "RANCHO SANTA MARGARITA",
      state: "CA",
      zip: "92688",
      country: "US",
    });
  });

  it("bounds the parser work of any address built from street words, separators, numbers and units", () => {
    fc.assert(
      fc.property(hostileAddress, (raw) => {
        const work = workOf(() => normalizeAddress(raw));
        assertBounded(work, raw);
      }),
      { numRuns: 400 },
    );
  });
});
