import parser, { type ParsedLocation } from "parse-address";
import { withOrdinalsInFigures } from "./street-ordinals.ts";
import { spelledOutLeadingType } from "./street-type-names.ts";
import { isAbbreviatedTownWord, spelledOutTown } from "./town-names.ts";
import { zipPlaces } from "./zip-places.ts";

/**
 * The one address type: a US address in parts, as the parser or a geocoder reads it. The
 * postcode is `zip` everywhere inside the service (the events API's property name); the lead
 * payload's and the profile's `postal_code` are wire names, mapped where they are written.
 */
export interface Address {
  street: string;
  city: string;
  state: string;
  zip: string;
  country: string;
}

/** The parts a record or a piece carries, any of them possibly missing. */
export type AddressParts = Partial<Pick<Address, "street" | "city" | "state" | "zip">>;

/** Address parts as anything may hold them: a record's properties, a stored piece, a parsed line. */
export interface LooseAddressParts {
  readonly street?: string | null;
  readonly city?: string | null;
  readonly state?: string | null;
  readonly zip?: string | null;
}

/** A mailable address: the printed line and its parts. */
export interface MailAddress {
  line: string;
  parts: AddressParts;
}

/** A part's trimmed text, or undefined when it is missing or blank. */
export const nonBlank = (value: string | null | undefined) => (value?.trim() ? value.trim() : undefined);

/** Joins address parts into one line: "street, city, state zip". */
export function composeAddress(parts: LooseAddressParts): string {
  const street = nonBlank(parts.street);
  const city = nonBlank(parts.city);
  const stateZip = [nonBlank(parts.state), nonBlank(parts.zip)].filter(Boolean).join(" ");
  return [street, city, stateZip].filter(Boolean).join(", ");
}

/** The one mailable-address rule: a street and at least one of city or ZIP. */
export function isMailable(parts: LooseAddressParts): boolean {
  return nonBlank(parts.street) !== undefined && (nonBlank(parts.city) ?? nonBlank(parts.zip)) !== undefined;
}

/**
 * The stricter rule for an address nobody will geocode or correct before it is printed (a past
 * job's line in an uploaded batch, mailed as it stands): the mailable rule, plus a number in the
 * street, and a state beside a city that has no ZIP.
 */
export function isPrintableAsWritten(parts: LooseAddressParts): boolean {
  if (!isMailable(parts) || !/\d/.test(parts.street ?? "")) return false;
  return nonBlank(parts.zip) !== undefined || nonBlank(parts.state) !== undefined;
}

/**
 * The mailable address of some parts (a record's reserved properties, a parsed line), else
 * undefined. `line` defaults to the parts composed ("street, city, state zip").
 */
export function mailAddressOf(parts: LooseAddressParts, line?: string): MailAddress | undefined {
  if (!isMailable(parts)) return undefined;
  const street = nonBlank(parts.street);
  const city = nonBlank(parts.city);
  const state = uspsStateCode(parts.state);
  const zip = nonBlank(parts.zip);
  line ??= composeAddress({ street, city, state, zip });
  return {
    line,
    parts: {
      street,
      ...(city ? { city } : {}),
      ...(state ? { state } : {}),
      ...(zip ? { zip } : {}),
    },
  };
}

/**
 * US address parsing and the normalized key under which addresses are compared (attribution,
 * suppression, geocode cache). parse-address (a port of Geo::StreetAddress::US) applies the
 * USPS Publication 28 street-suffix, directional and state abbreviations; this module folds case
 * and punctuation, unit designators and ZIP+4 on top of it.
 *
 * Key format: `<street line>, <CITY> <ST> <ZIP5>` with absent parts left out, for example
 * `123 N MAIN ST #4, SPRINGFIELD IL 62701`; a town's abbreviated first word spelled out
 * (`SAINT PAUL` for "St Paul", town-names.ts).
 */

/** Every numbered unit designator (APT, UNIT, STE, RM, FL, #…) folds to this one form. */
const UNIT_MARK = "#";

/** Unnumbered designators keep their Pub 28 abbreviation, since they carry no number to fold into. */
const UNNUMBERED_UNITS: Record<string, string> = {
  BASEMENT: "BSMT",
  BSMT: "BSMT",
  FRONT: "FRNT",
  FRNT: "FRNT",
  LOBBY: "LBBY",
  LBBY: "LBBY",
  LOWER: "LOWR",
  LOWR: "LOWR",
  OFFICE: "OFC",
  OFC: "OFC",
  PENTHOUSE: "PH",
  PH: "PH",
  REAR: "REAR",
  SIDE: "SIDE",
  UPPER: "UPPR",
  UPPR: "UPPR",
};

const PO_BOX = /^P\W*(?:O|M|OST\s*OFFICE)\W*B(?:OX)?$/;

/** Upper case, punctuation other than `#`, `/` and `-` inside words dropped, whitespace collapsed. */
function fold(value: string | undefined): string {
  if (!value) return "";
  return value
    .toUpperCase()
    .replace(/[.,;:'"`()]/g, " ")
    .replace(/(?<!\s)\s+-\s+|^-|-$/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

function unitText(parsed: ParsedLocation): string {
  const designator = fold(parsed.sec_unit_type).replace(/\s+/g, " ");
  const number = fold(parsed.sec_unit_num).replace(/^#/, "");
  if (!designator && !number) return "";
  if (PO_BOX.test(designator)) return "";
  if (!number) return UNNUMBERED_UNITS[designator] ?? designator;
  return `${UNIT_MARK}${number}`;
}

function isPoBox(parsed: ParsedLocation): boolean {
  return PO_BOX.test(fold(parsed.sec_unit_type));
}

function streetLine(parsed: ParsedLocation): string {
  if (isPoBox(parsed) && !parsed.street) return `PO BOX ${fold(parsed.sec_unit_num)}`.trim();
  const folded = withLeadingTypeSpelledOut(fold(parsed.street));
  const name = parsed.type ? folded : withRouteTypeSpelledOut(folded);
  const words = [fold(parsed.number), fold(parsed.prefix), name, fold(parsed.type), fold(parsed.suffix)];
  const unit = unitText(parsed);
  return [...words, unit].filter(Boolean).join(" ");
}

/**
 * "AVE OF THE AMERICAS" → "AVENUE OF THE AMERICAS", "MT VERNON" → "MOUNT VERNON": a street type
 * opening a name of more than one word is a word of the name, spelled in full as Publication 28
 * writes it, so "Ave of the Americas" and "Avenue of the Americas" key alike. A one-word name is
 * left as written ("Park Ave", "Circle Dr"). Stored keys are re-keyed by migration 0430.
 */
function withLeadingTypeSpelledOut(name: string): string {
  const space = name.indexOf(" ");
  if (space < 0) return name;
  const spelledOut = spelledOutLeadingType(name.slice(0, space));
  return spelledOut ? spelledOut + name.slice(space) : name;
}

/**
 * "COUNTY RD 12" → "COUNTY ROAD 12", "US HWY 1" → "US HIGHWAY 1": a road named by its number (or
 * letters) after a street type has that type spelled in full, as Publication 28 writes such names,
 * so "County Rd 12" and "County Road 12" key alike. Only for a name the parser gave no type.
 * Stored keys are re-keyed by migration 0460.
 */
function withRouteTypeSpelledOut(name: string): string {
  const words = name.split(" ");
  if (words.length < 2 || !isRouteDesignator(words.at(-1) as string)) return name;
  const spelledOut = spelledOutLeadingType(words.at(-2) as string);
  return spelledOut ? [...words.slice(0, -2), spelledOut, words.at(-1)].join(" ") : name;
}

function stateFromZip(zip: string): string {
  return placeOfZip(zip)?.state ?? "";
}

/** The city and state a ZIP belongs to, as the ZIP database spells them ("Springfield", "IL"). */
export function placeOfZip(zip: string): { city: string; state: string } | undefined {
  const place = zip ? zipPlaces.lookup(zip) : undefined;
  return place ? { city: place.city, state: place.state } : undefined;
}

/** The city a ZIP belongs to (its USPS name), folded and spelled out as keys write it; "" when unknown. */
export function cityOfZip(zip: string): string {
  return asKeyTown(placeOfZip(zip)?.city ?? "");
}

/** A town's name as the ZIP table writes it ("St. Louis") as keys write it ("SAINT LOUIS"). */
function asKeyTown(tableName: string): string {
  return spelledOutTown(fold(withoutDiacritics(tableName)));
}

/** The ZIPs of a city, at most `limit` (a city written without its ZIP could be any of them). */
export function zipsOfCity(city: string, state: string, limit: number): string[] {
  if (!city || !state) return [];
  return zipPlaces
    .lookupByName(city, state)
    .map((place) => place.zip)
    .slice(0, limit);
}

/** The fallback for text the parser cannot read as a street address: folded as a whole. */
function unparsedParts(raw: string): Address {
  const zipMatch = /\b(\d{5})(?:-?\d{4})?\s*$/.exec(raw.trim());
  const withoutPlus4 = zipMatch ? raw.trim().slice(0, zipMatch.index) + zipMatch[1] : raw;
  return { street: fold(withoutPlus4), city: "", state: "", zip: "", country: "US" };
}

/** Latin letters that are not a base letter plus an accent, so NFD leaves them whole. */
const LETTER_FOLDS: Record<string, string> = {
  ß: "ss",
  ø: "o",
  Ø: "O",
  ł: "l",
  Ł: "L",
  đ: "d",
  Đ: "D",
  æ: "ae",
  Æ: "AE",
  œ: "oe",
  Œ: "OE",
};

/** Full-width ASCII (U+FF01-FF5E, from East Asian keyboards) sits 0xFEE0 above ASCII. */
const FULL_WIDTH = /[\uff01-\uff5e]/g;

/**
 * "Peñasco" → "Penasco", "San José" → "San Jose", "Łódź" → "Lodz", full-width "１２３" → "123":
 * the parser reads ASCII words only and silently dropped such letters ("PEASCO"), so "Peñasco"
 * and "Penasco" got different keys and a registered customer was mailed. Only accents on Latin
 * letters are removed (NFD, not NFKD: that would turn "123½" into "1231/2", another house
 * number); other scripts keep theirs ("Й" is not "И"), recomposed.
 */
function withoutDiacritics(text: string): string {
  return text
    .normalize("NFD")
    .replace(/(\p{L}?)\p{M}+/gu, (marked, letter: string) => (isLatinOrNone(letter) ? letter : marked))
    .normalize("NFC")
    .replace(/[ßøØłŁđĐæÆœŒ]/g, (letter) => LETTER_FOLDS[letter] ?? letter)
    .replace(FULL_WIDTH, (character) => String.fromCharCode(character.charCodeAt(0) - 0xfee0));
}

const isLatinOrNone = (letter: string) => letter === "" || /\p{Script=Latin}/u.test(letter);

/**
 * Two or more characters in a row that are neither letters nor digits. parse-address's patterns
 * backtrack polynomially on such runs ("1" + 140 spaces + "x" took 25 s, blocking the process),
 * so a run reaches the parser as one separator: ", " if it holds a comma, " #" if a unit mark,
 * else a space. Nothing is lost: the key folds this punctuation to spaces anyway.
 */
const SEPARATOR_RUN = /[^\p{L}\p{M}\p{N}]{2,}/gu;

function collapsedSeparator(run: string): string {
  if (run.includes(",")) return ", ";
  return run.includes("#") ? " #" : " ";
}

/**
 * parse-address reads any text holding "and", "at", "&" or "@" as an intersection, whose pattern
 * nests two street patterns and a locality: "12 " + "St and " × 70 took 0.3 s, and every result
 * it gives (a street1, or nothing) is read by this module as "not a street address" anyway. Such
 * text never reaches the library.
 */
const INTERSECTION_WORD = /\band\b|\bat\b|[&@]/i;

/**
 * The most words a text may hold to be read by the parser. Its street and locality patterns
 * backtrack polynomially in the number of words (about the cube), so past this the text is folded
 * as a whole, as unreadable text is. A real address has 6 to 16 words ("123 North Main Street
 * Apt 4B, Rancho Santa Margarita, CA 92688-1234" has 14); at 24 words the slowest text the
 * property test could build costs well under a millisecond.
 */
export const MAX_PARSED_WORDS = 24;

/**
 * The longest text (separator runs collapsed) the parser reads; longer text is folded as a whole.
 * Its number pattern backtracks quadratically in the length of a run of digits: one word of
 * 10,000 digits took 0.6 s, and the trigger's and conversions' street aliases take up to 1 MB.
 * Twice the spec's 500 characters of an address, so every address within it keys as before, even
 * one whose letters fold longer ("ß" is "ss"); at this length the parser's worst case is ~10 ms.
 */
export const MAX_PARSED_LENGTH = 1000;

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * The shape of a real address's words: no run of more than 10 digits (a ZIP+4 written without its
 * dash has 9), no word of letters and digits over 12 characters (the grid number "W156N12345" has
 * 10), none over 24 ("Kleinfeltersville", the longest word of a town in the ZIP table, has 17). The
 * parser's number, fraction and street patterns try every split of longer runs against each other:
 * 500 characters of glued digits and unit words cost 25-170 ms a call (docs/addresses.md).
 */
const LONG_DIGIT_RUN = /\p{N}{11}/u;
const LONGEST_WORD = 24;
const LONGEST_MIXED_WORD = 12;
const isMixedWord = (word: string) => /\p{N}/u.test(word) && /\p{L}/u.test(word);

/** True when the text has more words than an address, or a word no address has (one pass). */
function unlikeAnAddress(text: string): boolean {
  if (LONG_DIGIT_RUN.test(text)) return true;
  let count = 0;
  for (const [word] of text.matchAll(WORD)) {
    if (++count > MAX_PARSED_WORDS || word.length > LONGEST_WORD) return true;
    if (word.length > LONGEST_MIXED_WORD && isMixedWord(word)) return true;
  }
  return false;
}

/**
 * parse-address's parseLocation with bounded cost: the only way to call it. Text the library
 * would read as an intersection, too long to be an address, or holding a word no address has is
 * null (read as unparsable).
 */
export function parseLocation(text: string): ParsedLocation | null {
  parsesOfAddress++;
  return parseBounded(text);
}

function parseBounded(text: string): ParsedLocation | null {
  const simplified = text.replace(SEPARATOR_RUN, collapsedSeparator);
  if (simplified.length > MAX_PARSED_LENGTH) return null;
  if (INTERSECTION_WORD.test(simplified) || unlikeAnAddress(simplified)) return null;
  const { ascii, restore } = withWordsOutsideAsciiStandingIn(simplified);
  const parsed = parser.parseLocation(ascii);
  return parsed && restore ? restore(parsed) : parsed;
}

/**
 * The parser calls made so far reading the address at hand (parseUsAddress), the street-type table's
 * cached lookups aside. An address makes at most 5 calls (docs/addresses.md); re-reading a street as
 * in its full form is one more, so it is tried only while this count leaves room for it and for a
 * lookup, whatever the cache holds: the key never depends on it.
 */
let parsesOfAddress = 0;
const MAX_PARSES_BEFORE_REREADING = 3;
const mayReread = () => parsesOfAddress <= MAX_PARSES_BEFORE_REREADING;

/** A letter or mark outside ASCII ("Мain" with a Cyrillic М); "½" and other signs are no letter. */
const NON_ASCII_LETTER = /(?!\p{ASCII})[\p{L}\p{M}]/u;

/**
 * The parser's patterns match ASCII word characters only and its output drops every other
 * character ("100 Мain St" read as "100 AIN ST", so two streets could share a key). Each such
 * word reaches it as an ASCII stand-in that is no street type, state, direction or unit word
 * (QXJAAA, QXJAAB…, with a prefix the text does not hold), and comes back as written.
 */
function withWordsOutsideAsciiStandingIn(text: string): {
  ascii: string;
  restore?: (parsed: ParsedLocation) => ParsedLocation;
} {
  const words: string[] = [];
  const upper = text.toUpperCase();
  let prefix = "QXJ";
  while (upper.includes(prefix)) prefix += "Q";
  const ascii = text.replace(WORD, (word) =>
    NON_ASCII_LETTER.test(word) ? `${prefix}${standInSuffix(words.push(word) - 1)}` : word,
  );
  if (words.length === 0) return { ascii: text };
  const standIn = new RegExp(`${prefix}([A-Z]{3})`, "gi");
  const original = (value: string) =>
    value.replace(standIn, (_, suffix: string) => words[standInIndex(suffix.toUpperCase())] ?? "");
  const restore = (parsed: ParsedLocation): ParsedLocation =>
    Object.fromEntries(
      Object.entries(parsed).map(([field, value]) => [
        field,
        typeof value === "string" ? original(value) : value,
      ]),
    );
  return { ascii, restore };
}

/**
 * 0 → "AAA", 27 → "ABB": three letters (more than the words the parser reads), so a stand-in
 * never reads as a number and is found again when the parser joins it to the next word.
 */
function standInSuffix(index: number): string {
  const letter = (place: number) => String.fromCharCode(65 + (Math.floor(index / 26 ** place) % 26));
  return letter(2) + letter(1) + letter(0);
}

function standInIndex(suffix: string): number {
  let index = 0;
  for (const letter of suffix) index = index * 26 + (letter.charCodeAt(0) - 65);
  return index;
}

/** Splits a US address into normalized parts (upper case, Pub 28 abbreviations, ZIP5). */
export function parseUsAddress(raw: string): Address {
  const text = withSainteTownSpelledOut(
    withoutDiacritics(raw)
      .replace(/(?<![\s,])[\s,]*\b(?:USA|U\.S\.A\.|UNITED STATES(?: OF AMERICA)?)\.?\s*$/i, "")
      // "N.W." is one directional; with its dots folded to spaces it would read as two words.
      .replace(/\b([NS])\.\s?([EW])\b\.?/gi, "$1$2")
      .trim(),
  );
  parsesOfAddress = 0;
  const parsed = text ? parseLocation(text) : null;
  if (!parsed || parsed.street1 || (!parsed.number && !isPoBox(parsed))) return unparsedParts(text);
  const reading = readingOf(parsed, text);
  const read = withStreetReadWhole(reading, text) ?? reading;
  return withRouteBeforeState(read, text) ?? read;
}

/**
 * "Ste" is a suite and the short form of "Sainte": "7 Elm Ave, Ste. Genevieve, MO 63670" read as
 * `7 ELM AVE #GENEVIEVE, MO 63670` (the town taken for a suite) and "7 Elm Ave Ste Genevieve MO"
 * as `7 ELM AVE #GENEVIEV, E MO`, never the key of "Sainte Genevieve". When "Ste" and the one to
 * three words after it end the text before the state or ZIP, and with "Ste" spelled out they name
 * a town of that state (Sainte Genevieve MO, Sainte Marie IL), the word is the town's and reaches
 * the parser spelled out. A suite is numbered or lettered ("Ste 200", "Ste B"), which names no
 * town. Keys stored in the old forms are re-keyed by migration 0490.
 */
function withSainteTownSpelledOut(text: string): string {
  if (!/\bSte\b/i.test(text)) return text;
  const locality = streetBeforeStateAndZip(text) ?? stateWrittenAtEnd(text);
  if (!locality) return text;
  for (const endingWithTown of STE_AND_WORDS_AT_END) {
    const ste = endingWithTown.exec(locality.head);
    const townWords = ste?.[2] as string;
    if (ste && isTownOfState(`SAINTE ${townWords}`, locality.state)) {
      return `${text.slice(0, ste.index)}Sainte ${text.slice(ste.index + (ste[1] as string).length)}`;
    }
  }
  return text;
}

/** "Ste" (or "Ste.") and then three, two or one words ending a text, longest first. */
const STE_AND_WORDS_AT_END = [3, 2, 1].map(
  (size) => new RegExp(`(?<=[\\s,])(Ste\\.?\\s+)((?:[^\\s,]+\\s+){${size - 1}}[^\\s,]+)$`, "i"),
);

/**
 * "100 Highway 61 MN" (a road named by its number, then a state alone, no town or ZIP) reads as
 * `100 HIGHWAY`: the parser drops the number and the state, so every road of that type was one
 * home ("County Road 12 IL" `100 COUNTY RD`, "County Road JJ WI" `100 COUNTY RD, JJ WI`). When the
 * text ends with a state (its code or name, comma or not) and the street before it, read as in the
 * full form, is a route's type and number with nothing after them but a unit, the key is that
 * street and the state: `100 HIGHWAY 61, MN`, as "100 Highway 61, MN" already keyed and as "2 Ave of
 * the Americas, NY" keys (0450's rule). A key that already reads so is left as it was. Keys stored
 * in the old forms are re-keyed by migration 0470.
 */
function withRouteBeforeState(reading: Address, text: string): Address | undefined {
  if (reading.zip !== "") return undefined;
  const written = stateWrittenAtEnd(text);
  if (!written || !endsWithRoute(written.head) || !mayReread()) return undefined;
  const street = streetOfFullForm(written);
  if (!street || street.type || street.suffix || !endsWithRouteNumber(fold(street.street))) return undefined;
  const route = { street: streetLine(street), city: "", state: written.state, zip: "", country: "US" };
  return addressKey(route) === addressKey(reading) ? undefined : route;
}

/** The state a text ends with (its code or its name) and the text before it, no town or ZIP written. */
function stateWrittenAtEnd(text: string): StreetBeforeLocality | undefined {
  const words = fold(text).split(" ");
  for (const size of [1, 2, 3]) {
    const state = STATE_CODES_BY_WRITING.get(words.slice(-size).join(" "));
    const head = state ? headBeforeState(text, state) : undefined;
    if (state && head !== undefined) return { head, town: "", state, zip: "" };
  }
  return undefined;
}

/**
 * "100 Highway 61", "100 Hwy 61 Apt 4", "100 Hwy 61 #4": a street type and a route's number or
 * letters end the text, maybe then a unit; checked without the parser, so other streets before a
 * state ("2 Ave of the Americas") cost no parser call.
 */
function endsWithRoute(head: string): boolean {
  const words = fold(head).split(" ");
  const unitWords = words.at(-1)?.startsWith("#") ? 1 : UNIT_DESIGNATOR.test(words.at(-2) ?? "") ? 2 : 0;
  return endsWithRouteNumber(words.slice(0, words.length - unitWords).join(" "));
}

/** "HIGHWAY 61", "COUNTY ROAD JJ": a street name that is a street type followed by a route's number or letters. */
function endsWithRouteNumber(name: string): boolean {
  const words = name.split(" ");
  return (
    words.length >= 2 && isRouteDesignator(words.at(-1) as string) && isStreetTypeWord(words.at(-2) as string)
  );
}

/** The parts of a parse, its city, state and ZIP re-read where the parser misplaces them. */
function readingOf(parsed: ParsedLocation, text: string): Address {
  const suffixAsCity = parsed.zip ? undefined : withSuffixReadAsCity(parsed, text);
  if (suffixAsCity) return partsOf(suffixAsCity);
  const ending = trailingZip(text);
  const read = (reading: ParsedLocation) => partsOf(withTypeReadAsCity(reading, text) ?? reading);
  if (parsed.state && parsed.city && !contradictsZip(parsed) && !misreadsZipCity(ending, parsed)) {
    return read(withSuffixReadAsCity(parsed, text) ?? parsed);
  }
  const withStateOfZip = reparseWithStateOfZip(ending);
  if (withStateOfZip) return read(withStateOfZip);
  if (!parsed.city && !parsed.state) return parseStatelessLocality(text, ending) ?? partsOf(parsed);
  return read(parsed);
}

/**
 * A street written before a bare state and ZIP, its town left out ("40 N Mill Creek Rd, 62704",
 * "40 Mill Creek Ct CT 06001", "7 Main St W, IL 62704"), is read by the parser with words of the
 * street taken for the town, the state or nothing: `40 N ML, CREEK RD IL 62704`,
 * `40 MILL CREEK CT CT, CT 06001`, `7 MAIN ST, W IL 62704`, never the same home as the full form.
 * The full form ("street, town, ST zip") is the one the parser reads right, so when the reading
 * looks wrong the street is read as the full form's: written with a stand-in town (or, with no ZIP,
 * the town of the state written before the state: "40 N Mill Creek Rd Springfield IL"). Keys stored in
 * the old forms are re-keyed by migration 0420 (db/data-migration-0420-whole-street-keys.ts).
 */
function withStreetReadWhole(reading: Address, text: string): Address | undefined {
  const written = mayReread() ? streetAndLocalityWritten(reading, text) : undefined;
  if (!written || reading.state !== written.state || !misreadsStreet(reading, written)) return undefined;
  const street = streetOfFullForm(written);
  if (!street) return undefined;
  const line = streetLine(street);
  const city = fold(written.town);
  if (line === reading.street && reading.city === city) return undefined;
  return { street: line, city, state: written.state, zip: written.zip, country: "US" };
}

function streetAndLocalityWritten(reading: Address, text: string): StreetBeforeLocality | undefined {
  const beforeState = streetBeforeStateAndZip(text);
  if (beforeState) return withTownEndingTheCity(beforeState, reading);
  return streetBeforeTownAndState(text) ?? typeAloneBeforeState(reading, text);
}

/**
 * "2 Ave of the Americas, NY" (no town, no ZIP) reads as `2 AVE, OF THE AMERICAS NY`: the parser
 * cut a name that opens with its type after the type, as with a ZIP (`isTypeAlone`). When the
 * reading's street is a type alone and the text ends with the state it read (its code or name),
 * the street is what precedes the state, read as in the full form: `2 AVENUE OF THE AMERICAS, NY`,
 * the key of the same street with its ZIP but for the ZIP. Other readings of such text are left.
 * Keys stored in the old form are re-keyed by migration 0450.
 */
function typeAloneBeforeState(reading: Address, text: string): StreetBeforeLocality | undefined {
  if (!reading.state || reading.zip || !isTypeAlone(reading.street)) return undefined;
  const head = headBeforeState(text, reading.state);
  return head === undefined ? undefined : { head, town: "", state: reading.state, zip: "" };
}

/**
 * "20 Calle Ocho Coral Gables FL 33134" reads as `20 CALLE, OCHO CORAL GABLES`: a town read that
 * names none but ends with a town of the state holds the street's last words. The town is that
 * ending, the longest of its last three words that is one (Coral Gables, not the ZIP's Miami),
 * unless a comma sets the whole town off ("20 Calle, Ocho Coral Gables": written as a town).
 */
function withTownEndingTheCity(written: StreetBeforeLocality, reading: Address): StreetBeforeLocality {
  const cityWords = reading.city.split(" ");
  if (written.town !== "" || cityWords.length < 2 || cityWrittenApart(written.head, reading.city))
    return written;
  if (namesATown(reading.city, { state: written.state, zip: written.zip } as ParsedLocation)) return written;
  for (let size = Math.min(3, cityWords.length - 1); size >= 1; size--) {
    const town = cityWords.slice(-size);
    if (!isTownOfState(town.join(" "), written.state)) continue;
    const atEnd = new RegExp(`(?<![\\s,])[\\s,]+(${wordsPattern(town)})[\\s.]*$`, "i").exec(written.head);
    if (atEnd) return { ...written, head: written.head.slice(0, atEnd.index), town: atEnd[1] as string };
  }
  return written;
}

/** The street of a text (`head`) and the locality written after it: a town ("" if none), the state, the ZIP. */
interface StreetBeforeLocality {
  head: string;
  town: string;
  state: string;
  zip: string;
}

function streetBeforeStateAndZip(text: string): StreetBeforeLocality | undefined {
  const ending = trailingZip(text);
  if (!ending?.state) return undefined;
  const head = headBeforeState(ending.head, ending.state) ?? ending.head.replace(/(?<![\s,])[\s,]+$/, "");
  return { head, town: "", state: ending.state, zip: ending.zip };
}

/**
 * The text before `state` written at its end, as its name ("New York") or its code ("NY"; a code
 * that is also a street type, as "CT", only after a comma or a street's end); undefined if the
 * text does not end with it.
 */
function headBeforeState(text: string, state: string): string | undefined {
  const head = text.replace(/(?<![\s,])[\s,]+$/, "");
  const stateName = STATE_NAMES[state];
  const nameAtEnd = stateName
    ? new RegExp(`(?<![\\s,])[\\s,]*\\b${stateName.replace(/ /g, "\\s+")}$`, "i").exec(head)
    : null;
  if (nameAtEnd) return head.slice(0, nameAtEnd.index);
  const stateWord = /(?<![\s,])([\s,]*)\b([A-Za-z]{2})\.?$/.exec(head);
  const before = stateWord ? head.slice(0, stateWord.index) : "";
  const isState =
    stateWord !== null &&
    fold(stateWord[2]) === state &&
    (stateWord[1]?.includes(",") || !isStreetTypeWord(stateWord[2] as string) || endsAStreet(before));
  return isState ? before : undefined;
}

/**
 * A text without a ZIP ending with a state code and, before it, a town of that state ("40 N Mill
 * Creek Rd Springfield IL"): the longest of its last three words that names one. The parser reads
 * such a text as street, town and state only when the street's reading leaves the town's words to it.
 */
function streetBeforeTownAndState(text: string): StreetBeforeLocality | undefined {
  const ending = /(?<![\s,])[\s,]+([A-Za-z]{2})\.?$/.exec(text);
  const state = fold(ending?.[1]);
  if (!ending || !(state in STATE_NAMES)) return undefined;
  const head = text.slice(0, ending.index);
  for (const size of [3, 2, 1]) {
    const town = new RegExp(`(?<![\\s,])[\\s,]+((?:[^\\s,]+\\s+){${size - 1}}[^\\s,]+)$`).exec(head);
    if (town && isTownOfState(town[1] as string, state)) {
      return { head: head.slice(0, town.index), town: town[1] as string, state, zip: "" };
    }
  }
  return undefined;
}

/** The states' names as written in full ("9 Maple Ct, Wisconsin 53703"), by USPS code. */
export const STATE_NAMES: Record<string, string> = Object.fromEntries(
  (
    "AL Alabama|AK Alaska|AZ Arizona|AR Arkansas|CA California|CO Colorado|CT Connecticut|DE Delaware|" +
    "DC District of Columbia|FL Florida|GA Georgia|HI Hawaii|ID Idaho|IL Illinois|IN Indiana|IA Iowa|" +
    "KS Kansas|KY Kentucky|LA Louisiana|ME Maine|MD Maryland|MA Massachusetts|MI Michigan|MN Minnesota|" +
    "MS Mississippi|MO Missouri|MT Montana|NE Nebraska|NV Nevada|NH New Hampshire|NJ New Jersey|" +
    "NM New Mexico|NY New York|NC North Carolina|ND North Dakota|OH Ohio|OK Oklahoma|OR Oregon|" +
    "PA Pennsylvania|RI Rhode Island|SC South Carolina|SD South Dakota|TN Tennessee|TX Texas|UT Utah|" +
    "VT Vermont|VA Virginia|WA Washington|WV West Virginia|WI Wisconsin|WY Wyoming|PR Puerto Rico"
  )
    .split("|")
    .map((entry) => [entry.slice(0, 2), entry.slice(3)]),
);

/** A state's USPS code by its code and by its name, as folded ("MN", "MINNESOTA", "NEW YORK"). */
const STATE_CODES_BY_WRITING = new Map(
  Object.entries(STATE_NAMES).flatMap(([code, name]) => [
    [code, code],
    [name.toUpperCase(), code],
  ]),
);

/**
 * A state as the card prints it and the check before print reads it: its USPS code when it is written
 * as a code in any case or as its name ("Illinois", "new york", "Ill." is not a name), else as written.
 * Many CRMs keep the state as free text; the name made every such card undeliverable ("ILLINOIS is
 * not a US state code") although the address key already read it as IL.
 */
export function uspsStateCode(written: string | null | undefined): string | undefined {
  const state = nonBlank(written);
  if (state === undefined) return undefined;
  return STATE_CODES_BY_WRITING.get(state.replace(/\s+/g, " ").toUpperCase()) ?? state;
}

/** Street types that end a street, never a word of its name as Creek, Park or Mill can be. */
const CLOSING_STREET_TYPES = new Set(
  "ST AVE RD DR LN CT BLVD WAY PL CIR TER PKWY HWY SQ TRL LOOP".split(" "),
);

/** Each compass direction's code as the parser writes it, by the word written in full. */
const DIRECTION_CODES: Record<string, string> = {
  NORTH: "N",
  SOUTH: "S",
  EAST: "E",
  WEST: "W",
  NORTHEAST: "NE",
  NORTHWEST: "NW",
  SOUTHEAST: "SE",
  SOUTHWEST: "SW",
};

const DIRECTIONS = new Set([...Object.keys(DIRECTION_CODES), ...Object.values(DIRECTION_CODES)]);

/** "N", "SW", "North" (any case): a compass direction, as a street's prefix or suffix. */
export const isDirectionWord = (word: string) => DIRECTIONS.has(word.toUpperCase());

/** A word that ends a street line, never a town's: a street type, a direction, or a unit without number ("Bsmt"). */
export const isStreetWord = (word: string) =>
  isDirectionWord(word) || isStreetTypeWord(word) || word.toUpperCase() in UNNUMBERED_UNITS;

/**
 * Whether a state code that is also a street type ("CT" is Court, "WY" Way, "LA" Lane) follows a
 * street's end, so it is the state: "40 Mill Creek Ct CT 06001", "5 Pine Ct Apt 2 CT", "7 Main St
 * W CT"; in "40 Mill Creek Ct 06001" the "Ct" is the street's.
 */
function endsAStreet(text: string): boolean {
  const last = fold(text).split(" ").at(-1) ?? "";
  return /\d/.test(last) || DIRECTIONS.has(last) || CLOSING_STREET_TYPES.has(streetTypeOf(last));
}

/**
 * The reading dropped words of the street, put them in the town ("CREEK RD", "W", "CT") or took
 * the state for the town ("15 N PARK AVE #2, TX TX 78701"). A town is kept when it names one (the
 * ZIP's, a town of the state) or a comma sets it off ("50 Main St, Chicago 60601").
 */
function misreadsStreet(reading: Address, written: StreetBeforeLocality): boolean {
  const head = fold(written.head);
  const isATown = (city: string) =>
    namesATown(city, { state: written.state, zip: written.zip } as ParsedLocation);
  if (written.town) {
    if (townGaveItsFirstWord(reading, written.town)) return true;
    return reading.city !== fold(written.town) && !isATown(reading.city);
  }
  if (reading.city === "") return wordsOf(reading.street) !== wordsOf(head);
  if (isATown(reading.city)) return false;
  // The town read is not at the end of the text before the state: it is the state ("TX TX 78701").
  if (!` ${head}`.endsWith(` ${reading.city}`)) return true;
  const cityWords = reading.city.split(" ");
  if (!cityWords.every(isStreetWord) && !isTypeAlone(reading.street)) return false;
  return !cityWrittenApart(written.head, reading.city);
}

/**
 * "100 Main St West Springfield MA" reads as `100 MAIN ST W, SPRINGFIELD MA`: the town written
 * before the state (a town of that state, found by `streetBeforeTownAndState`) opens with a
 * direction in full, which the reading took as the street's suffix. With no ZIP to decide, the
 * town the state has is the reading: `100 MAIN ST, WEST SPRINGFIELD MA`, as with West Springfield's
 * ZIP. An abbreviated direction ("Main St W Springfield"), one set off by a comma ("Main St W,
 * Springfield") or a town the state lacks ("West Springfield IL") keeps the street's direction.
 * Keys stored in the old form are re-keyed by migration 0450. A town opening with an abbreviation
 * ("12 Main St Mt Vernon NY", where the state has a Vernon too) gave the street that word the same
 * way: `12 MAIN ST, MOUNT VERNON NY` (migration 0480).
 */
function townGaveItsFirstWord(reading: Address, town: string): boolean {
  const [first = "", ...rest] = fold(town).split(" ");
  const wordInStreet = DIRECTION_CODES[first] ?? (isAbbreviatedTownWord(first) ? first : undefined);
  return (
    wordInStreet !== undefined &&
    rest.join(" ") === reading.city &&
    reading.street.endsWith(` ${wordInStreet}`)
  );
}

/**
 * A street line that is a house number, maybe a direction, and a street type ("2 AVE", "5 N VIA"):
 * the parser cut a name that opens with its type ("Ave of the Americas, NY 10036") after the type
 * and read the rest as the town.
 */
function isTypeAlone(street: string): boolean {
  const words = street.split(" ").slice(1);
  if (words.length === 2 && isDirectionWord(words[0] as string)) words.shift();
  return words.length === 1 && isStreetTypeWord(words[0] as string);
}

const wordsOf = (text: string) => text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The street of `written` as the parser reads it in the full form (a stand-in for a town not written). */
function streetOfFullForm(written: StreetBeforeLocality): ParsedLocation | undefined {
  let town = written.town || "Zqxtown";
  while (!written.town && written.head.toUpperCase().includes(town.toUpperCase())) town += "q";
  const parsed = parseLocation(`${written.head}, ${town}, ${written.state} ${written.zip}`.trim());
  if (!parsed || (!parsed.number && !isPoBox(parsed)) || parsed.street1) return undefined;
  return fold(parsed.city) === fold(town) ? parsed : undefined;
}

/**
 * "12 Main Street, TX" reads "Street" as the city of a street without a type: the address names
 * no city at all (and a card to "12 MAIN, STREET TX" would be mailed). When the street with its
 * "city" appended parses as a street with a type and no city, that is the reading. A city written
 * as a town (set off from the street by a comma, or the ZIP's own town) stays the city, and the
 * re-reading stands only when the type it finds is a word of the street: "12 Main Street Garage,
 * Springfield, IL" is `12 MAIN ST, SPRINGFIELD IL`, the street's extra words dropped as the
 * parser drops them, while "100 Broadway, Long Beach, CA" keeps `100 BROADWAY, LONG BEACH CA`
 * (the re-reading took the town's "Beach" for the type: `100 BROADWAY LONG BCH`). Keys stored in
 * that old form are re-keyed by migration 0440. A route's number is no such extra word: "100
 * County Road 12, Springfield, IL" stays `100 COUNTY ROAD 12` (migration 0460).
 */
function withSuffixReadAsCity(parsed: ParsedLocation, text: string): ParsedLocation | undefined {
  if (!parsed.city || parsed.type || !parsed.number || !parsed.street) return undefined;
  const street = [parsed.number, parsed.prefix, parsed.street, parsed.city].filter(Boolean).join(" ");
  const reread = parseLocation(street);
  if (!reread?.type || reread.city || reread.street1) return undefined;
  if (!cityWrittenAsTown(parsed, text))
    return { ...reread, city: undefined, state: parsed.state, zip: parsed.zip };
  const dropped = wordsDroppedByRereading(reread, parsed);
  // A route's number right after the type names the road; a unit ("Apt 4") or a note does not.
  if (dropped === undefined || isRouteDesignator(dropped[0] ?? "")) return undefined;
  return { ...reread, city: parsed.city, state: parsed.state, zip: parsed.zip };
}

/**
 * The words of the parsed street after the re-read street and its type ("GARAGE" of "Main Street
 * Garage"), or undefined when the re-reading's type is not a word of the street (it took one of
 * the town's).
 */
function wordsDroppedByRereading(reread: ParsedLocation, parsed: ParsedLocation): string[] | undefined {
  const words = (...parts: (string | undefined)[]) => fold(parts.filter(Boolean).join(" ")).split(" ");
  const kept = words(reread.prefix, reread.street).length + 1;
  const street = words(parsed.prefix, parsed.street);
  return kept <= street.length ? street.slice(kept) : undefined;
}

/**
 * "12" of "County Road 12", "JJ" of "County Road JJ", "9A" of "State Route 9A": a route's number
 * or letters, which name the road ("County Road 12" and "County Road 14" are two roads), unlike a
 * note after a street's type ("Garage").
 */
const isRouteDesignator = (word: string) => /\d/.test(word) || /^[A-Z]{1,2}$/.test(word);

/** The parsed city follows a comma in the text, or is the city of the parsed ZIP. */
function cityWrittenAsTown(parsed: ParsedLocation, text: string): boolean {
  const city = fold(parsed.city);
  if (city === "") return false;
  if (cityOfZip(/^\d{5}$/.test(parsed.zip ?? "") ? (parsed.zip as string) : "") === city) return true;
  const words = city.split(" ").map(escapeRegExp).join("[\\s.,-]+");
  return new RegExp(`,[\\s.]*${words}(?![\\p{L}\\p{N}])`, "iu").test(text);
}

/**
 * "40 Mill Creek Rd IL 62704", and "40 Mill Creek Rd, 62704" read with its ZIP's state, read
 * "Creek" as the street's type and "Rd" as the city: the key was "40 MILL CRK, RD IL 62704", never
 * the same home as "40 MILL CREEK RD, SPRINGFIELD IL 62704". When the city is one word and the
 * text up to that word reads as a street with a type and nothing after it, the word is the
 * street's type. A city is kept when it names a town: the ZIP's own city ("12 Oak St Center TX
 * 75935") or a town of the state ("12 Oak St Center TX"), or when a comma sets it off from the
 * street ("12 Oak St, Center, TX": written as a city, whatever its name). Keys stored in the old
 * form are re-keyed by migration 0410 (db/data-migration-0410-street-type-keys.ts).
 */
function withTypeReadAsCity(parsed: ParsedLocation, text: string): ParsedLocation | undefined {
  const city = parsed.city?.trim() ?? "";
  if (!parsed.type || !parsed.number || !parsed.street || !isStreetTypeWord(city)) return undefined;
  if (namesATown(city, parsed)) return undefined;
  const occurrences = [...text.matchAll(new RegExp(`\\b${city}\\b\\.?`, "gi"))].reverse();
  for (const occurrence of occurrences) {
    // "N123W4567 Ct Ct Ct Ct Ct Ct": one parse per occurrence would pass the 5 calls an address may make.
    if (!mayReread()) break;
    const reread = parseLocation(text.slice(0, occurrence.index + occurrence[0].length));
    if (!reread?.type || reread.number !== parsed.number || reread.street1) continue;
    if (reread.city || reread.state || reread.zip) continue;
    if (/,\s*$/.test(text.slice(0, occurrence.index))) return undefined;
    return { ...reread, city: undefined, state: parsed.state, zip: parsed.zip };
  }
  return undefined;
}

const streetTypeWords = new Map<string, string>();

/**
 * Whether the parser reads a word as a street type ("Rd", "Road", "Creek", "Center"; not "Apt",
 * "N" or "Springfield"), as its Publication 28 table says; the table itself is not exported.
 */
export function isStreetTypeWord(word: string): boolean {
  return streetTypeOf(word) !== "";
}

/** The Publication 28 abbreviation the parser gives a street type word ("Court" → "CT"), else "". */
export function streetTypeOf(word: string): string {
  const folded = word.toUpperCase();
  let known = streetTypeWords.get(folded);
  if (known === undefined) {
    const parsed = /^[A-Z]+$/.test(folded) ? parseBounded(`1 Main ${folded}`) : null;
    const isType = parsed?.type && parsed.street === "Main" && !parsed.city && !parsed.suffix;
    known = isType ? fold(parsed.type) : "";
    if (streetTypeWords.size >= 10_000) streetTypeWords.clear();
    streetTypeWords.set(folded, known);
  }
  return known;
}

/** The city of a reading is a town: its ZIP's city, or a town of its state or of its ZIP's state. */
function namesATown(city: string, parsed: ParsedLocation): boolean {
  if (fold(city) === "") return false;
  const zip = /^\d{5}$/.test(parsed.zip ?? "") ? (parsed.zip as string) : "";
  if (cityOfZip(zip) === fold(city)) return true;
  const states = new Set([fold(parsed.state), stateFromZip(zip)].filter(Boolean));
  return [...states].some((state) => isTownOfState(city, state));
}

const townsOfStates = new Map<string, boolean>();

/**
 * Whether a state has a town of that name. The ZIP table answers by scanning the state's ZIPs
 * (~0.2 ms for Illinois); the words asked about are street types and the towns written before a
 * state, a few hundred at most a state. Migration 0450 asks it too.
 */
export function isTownOfState(city: string, state: string): boolean {
  const key = `${state} ${fold(city)}`;
  let known = townsOfStates.get(key);
  if (known === undefined) {
    known = zipsOfCity(city, state, 1).length > 0;
    if (townsOfStates.size >= 10_000) townsOfStates.clear();
    townsOfStates.set(key, known);
  }
  return known;
}

/** The ZIP5 a text ends with (a ZIP+4 too), the text before it, and the ZIP's place if known. */
interface TrailingZip {
  zip: string;
  head: string;
  city?: string;
  state?: string;
}

function trailingZip(text: string): TrailingZip | undefined {
  const match = TRAILING_ZIP.exec(text);
  if (!match) return undefined;
  const zip = match[1] as string;
  const place = zipPlaces.lookup(zip);
  return { zip, head: text.slice(0, match.index), city: place?.city, state: place?.state };
}

/**
 * "50 Main St, New York 10001" reads "New York" as the state and "St" as the city: the text ends
 * with its ZIP's city, which the parse did not find.
 */
function misreadsZipCity(ending: TrailingZip | undefined, parsed: ParsedLocation): boolean {
  if (!ending?.city || fold(parsed.city) === fold(ending.city)) return false;
  const head = headWithoutState(ending);
  if (cityWrittenApart(head, parsed.city ?? "")) return false;
  return withZipCitySplit(head, ending.city) !== undefined;
}

/**
 * A town the writer set off with a comma ("100 Main St, South Boston, MA 02127") is the town, even
 * where it ends with the ZIP's city (02127 is Boston's): read as that city, it would give the street
 * a direction nobody wrote (`100 MAIN ST S, BOSTON`).
 */
function cityWrittenApart(head: string, city: string): boolean {
  const words = fold(city).split(" ").filter(Boolean);
  if (words.length === 0) return false;
  return new RegExp(`,[\\s.]*${wordsPattern(words)}[\\s.]*$`, "i").test(head);
}

/** A pattern of these words in this order, however the writer separated them: spaces, dots, commas, hyphens. */
function wordsPattern(words: readonly string[]): string {
  return words.map(escapeRegExp).join("[\\s.,-]+");
}

/**
 * The text before the ZIP without the ZIP's state code written just before it: "… Cheyenne WY
 * 82001" ends with its ZIP's city once "WY" (which the parser reads as the street type Way) is off.
 */
function headWithoutState(ending: TrailingZip): string {
  const state = ending.state ? new RegExp(`(?<![\\s,])[\\s,]+${ending.state}\\.?$`, "i") : undefined;
  return state ? ending.head.replace(state, "") : ending.head;
}

/** "1600 Pennsylvania Ave NW, Washington 20500" reads "Washington" as the state; its ZIP says DC. */
function contradictsZip(parsed: ParsedLocation): boolean {
  const zipState = stateFromZip(/^\d{5}$/.test(parsed.zip ?? "") ? (parsed.zip as string) : "");
  return zipState !== "" && zipState !== fold(parsed.state);
}

function partsOf(parsed: ParsedLocation): Address {
  const postalCode = /^\d{5}$/.test(parsed.zip ?? "") ? (parsed.zip as string) : "";
  return {
    street: streetLine(parsed),
    city: fold(parsed.city),
    state: fold(parsed.state) || stateFromZip(postalCode),
    zip: postalCode,
    country: "US",
  };
}

/**
 * parse-address reads a locality only when a state follows the city: "50 Main St, Chicago 60601"
 * gives the street alone (city and ZIP dropped, so two homes in different towns would share a
 * key) and "50 Main St Springfield 62704" puts the city inside the street name. Written with the
 * ZIP's state, both parse as street, city, state, ZIP; that reading is kept only when the street
 * then ends in a street type, so "3 Pine Way 62701" does not make "Way" a city.
 */
function reparseWithStateOfZip(ending: TrailingZip | undefined): ParsedLocation | undefined {
  if (!ending?.state) return undefined;
  const { zip, head, city, state } = ending;
  const locality = `${state} ${zip}`;
  const split = withZipCitySplit(headWithoutState(ending), city);
  const reparsed = parseLocation(split ? `${split}, ${locality}` : `${head} ${locality}`);
  // Split at the ZIP's own city, a street without a type ("1 Park Springfield 62704") is one too.
  if (!reparsed?.city || !(reparsed.type || isPoBox(reparsed) || split)) return undefined;
  return { ...reparsed, state, zip };
}

/**
 * When the text before the ZIP ends with the ZIP's own city ("… Long Island City", "… St. Louis",
 * "… West Springfield"), the street is what precedes it: "street, City, ST zip" then parses
 * without a street-type word of the city being read as the street's.
 */
function withZipCitySplit(head: string, zipCity: string | undefined): string | undefined {
  if (!zipCity) return undefined;
  const words = (value: string) => fold(value).split(" ").filter(Boolean);
  const comparable = (word: string) => (word === "SAINT" ? "ST" : word);
  const headWords = words(head);
  const cityWords = words(zipCity);
  const streetLength = headWords.length - cityWords.length;
  const endsWithCity = cityWords.every(
    (word, index) => comparable(headWords[streetLength + index] ?? "") === comparable(word),
  );
  if (!endsWithCity || streetLength < 2) return undefined;
  // The city as written ("St Louis" stays ST LOUIS), so the key matches the form with a state.
  return `${headWords.slice(0, streetLength).join(" ")}, ${headWords.slice(streetLength).join(" ")}`;
}

/** A Publication 28 secondary unit designator (or #) opening a text. */
const UNIT_DESIGNATOR =
  /^\s*(?:#|(?:APT|APARTMENT|UNIT|STE|SUITE|FL|FLOOR|RM|ROOM|BLDG|BUILDING|DEPT|LOT|TRLR|TRAILER|SPC|SPACE|HNGR|HANGAR|PIER|SLIP|STOP|KEY|BSMT|BASEMENT|FRNT|FRONT|REAR|SIDE|LOWR|LOWER|UPPR|UPPER|PH|PENTHOUSE|OFC|OFFICE|LBBY|LOBBY)\b\.?)/i;

const TRAILING_ZIP = /(?<![\s,])[\s,]*\b(\d{5})(?:-?\d{4})?$/;

/**
 * The rest of the stateless forms ("50 Main St, Springfield", "12 Broadway, Springfield 62701"):
 * a trailing ZIP (its state then taken from it), and before it the city after the last comma;
 * what precedes that comma is the street line ("50 Main St, Apt 4").
 */
function parseStatelessLocality(text: string, ending: TrailingZip | undefined): Address | undefined {
  const postalCode = ending?.zip ?? "";
  const withoutZip = ending?.head ?? text;
  const comma = withoutZip.lastIndexOf(",");
  if (comma < 0) return undefined;
  const tail = withoutZip.slice(comma + 1);
  // "123 Main St, Apt 4": the tail is the street's unit, not a city (the whole parse keeps it).
  if (UNIT_DESIGNATOR.test(tail)) return undefined;
  const street = streetBeforeTown(withoutZip.slice(0, comma), tail, ending);
  if (!street || street.street1 || (!street.number && !isPoBox(street))) return undefined;
  const city = fold(tail);
  if (!city && !postalCode) return undefined;
  return {
    street: streetLine(street),
    city,
    state: ending?.state ?? "",
    zip: postalCode,
    country: "US",
  };
}

/**
 * The street written before ", town" as the full form reads it: alone, "40 N Mill Creek Rd" reads
 * as `40 N ML` ("Mill" the type, the rest dropped). The parser reads a town only before a state,
 * so one is written: the ZIP's, else any (the state does not change how the street reads).
 */
function streetBeforeTown(
  street: string,
  town: string,
  ending: TrailingZip | undefined,
): ParsedLocation | null {
  const written = {
    head: street,
    town: town.trim(),
    state: ending?.state ?? ANY_STATE,
    zip: ending?.zip ?? "",
  };
  return (mayReread() ? streetOfFullForm(written) : undefined) ?? parseLocation(street);
}

const ANY_STATE = "KS";

/**
 * The key an address is compared under; equal keys mean the same delivery point. Its town is the
 * one `townOfKey` names: the written town, as the ZIP table spells that town.
 */
export function addressKey(parts: Address): string {
  return keyOf(withOrdinalsInFigures(parts.street), townOfKey(parts), parts);
}

function keyOf(street: string, town: string, { state, zip }: Address): string {
  const locality = [town, state, zip].filter(Boolean).join(" ");
  return locality ? `${street}, ${locality}` : street;
}

/**
 * The key of `raw` with its street and town as written, as keys were before `townOfKey` and
 * `withOrdinalsInFigures`: what the re-keying migrations before 0530 compare a stored key with
 * (0530 and 0540 then move the town's spelling and the ordinals).
 */
export function keyAsWritten(raw: string): string {
  const parts = parseUsAddress(raw);
  return keyOf(parts.street, spelledOutTown(parts.city), parts);
}

/**
 * The town a key names: the written town as the ZIP table spells that town of the written state
 * ("Winston-Salem, NC" and "McLean, VA" are the table's WINSTON SALEM and MC LEAN, with or without
 * their ZIP), else as written. Never the ZIP's own town in place of the written one: "Boston, MA
 * 02134" and "Boston, MA" are one home to `sameHome` by their town, while 02134's town is Allston;
 * a neighbourhood written with the ZIP ("Hollywood, CA 90028") is the ZIP's town's home by the ZIP.
 */
export function townOfKey({ city, state }: Pick<Address, "city" | "state">): string {
  const written = spelledOutTown(city);
  if (written === "") return written;
  return tableSpelling(written, state) || written;
}

/** A town of the state as the ZIP table spells it, for any spelling of it; "" when the state has none. */
function tableSpelling(town: string, state: string): string {
  const place = state ? zipPlaces.lookupByName(town, state)[0] : undefined;
  return place ? asKeyTown(place.city) : "";
}

/** Punctuation alone ("!!!", "---") normalizes to a key all the same, but names no address. */
export const namesAPlace = (normalizedAddress: string) => /[\p{L}\p{N}]/u.test(normalizedAddress);

export function normalizeAddress(raw: string): string {
  return addressKey(parseUsAddress(raw));
}
