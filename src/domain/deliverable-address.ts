/**
 * The offline check of an address before print (issue 39): what can be known without a postal
 * database. A house number; a ZIP that exists, in the state written; a city that is the ZIP's
 * place (or, at the normal level, no known place of the state far from the ZIP); a USPS state code.
 */
import { type Address, parseUsAddress, uspsStateCode } from "./address.ts";
import { isNeighbourTown } from "./neighbour-towns.ts";
import { townKey } from "./town-names.ts";
import { zipPlaces } from "./zip-places.ts";

/** How strictly an organization's addresses are checked before print. */
export const VERIFICATION_LEVELS = ["strict", "normal", "relaxed"] as const;
export type VerificationLevel = (typeof VERIFICATION_LEVELS)[number];
export const DEFAULT_VERIFICATION_LEVEL: VerificationLevel = "normal";

/** An address as it was written: what the checks read (a missing part is undefined). */
export interface WrittenAddress {
  street?: string | undefined;
  city?: string | undefined;
  state?: string | undefined;
  zip?: string | undefined;
}

/** USPS state and territory codes, the military "states" (AA, AE, AP) included. */
export const USPS_STATE_CODES: ReadonlySet<string> = new Set(
  (
    "AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND " +
    "OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY AS GU MP PR VI UM FM MH PW AA AE AP"
  ).split(" "),
);

const text = (value: string | null | undefined) => (value?.trim() ? value.trim() : undefined);
const sameName = (a: string, b: string) => townKey(a) === townKey(b);

/** A state code and ZIP (ZIP+4 too) ending a line, after a space or comma. */
const STATE_AND_ZIP_AT_END = /(?<=[\s,])([A-Za-z]{2})\.?[\s,]+(\d{5})(?:-\d{4})?\s*$/;
const isSeparator = (character: string | undefined) => character === "," || /\s/.test(character ?? "");

/**
 * "…, Austin, TX 10001" or "…, TX 10001" (ZIP+4 too): the city, state and ZIP exactly as written at
 * the end of a line. A comma must come before them, so the street's last word is never read as a
 * state ("2004 Pine Rd, 60601" has no state); the city is what follows the last comma before the
 * state's separators. Found by hand from the state back, in linear time: one regular expression for
 * the whole (`,\s*(?:([^,]+?)[\s,]+)?…`) took cubic time on a run of spaces, 1.35 s for an
 * address of 500 characters, the spec's limit.
 */
function writtenTail(
  line: string,
): { street?: string; city?: string; state: string; zip: string } | undefined {
  const end = STATE_AND_ZIP_AT_END.exec(line);
  if (!end) return undefined;
  const [, state = "", zip = ""] = end;
  let separatorsStart = end.index;
  while (separatorsStart > 0 && isSeparator(line[separatorsStart - 1])) separatorsStart--;
  const body = line.slice(0, separatorsStart);
  const comma = body.lastIndexOf(",");
  if (comma >= 0) return { street: body.slice(0, comma), city: body.slice(comma + 1), state, zip };
  return line.slice(separatorsStart, end.index).includes(",") ? { state, zip } : undefined;
}

/**
 * The parts of an address as written: the stored parts where there are some, else read from the
 * line. The state and city are taken from the line's own ending when it has one, so a state the
 * parser replaced by the ZIP's own ("12 Main St, Austin, TX 10001" reads as NY) is still seen.
 */
export function writtenAddressOf(
  line: string,
  parts: { street?: string | null; city?: string | null; state?: string | null; zip?: string | null },
): WrittenAddress {
  const tail = writtenTail(line);
  const parsed = parseUsAddress(line);
  return {
    // Text the parser cannot read as a street address is folded whole; its first part, as written, is the street.
    street: text(parts.street) ?? (/^\d/.test(parsed.street) ? parsed.street : text(line.split(",")[0])),
    city: text(parts.city) ?? text(tail?.city) ?? text(parsed.city),
    state: uspsStateCode(text(parts.state) ?? text(tail?.state) ?? text(parsed.state)),
    zip: text(parts.zip) ?? text(tail?.zip) ?? text(parsed.zip),
  };
}

/** A line's part that is a unit of the street's building ("Apt 3", "Unit B", "#4", "Suite 200"). */
const UNIT_PART =
  /^(#\s*\w+|(apt|apartment|unit|ste|suite|rm|room|fl|floor|bldg|building|lot|spc|space|trlr|dept)\.?\s+\S+)$/i;

/**
 * The street as the line writes it ("412 Maple Ave"; "412 Maple Ave Apt 3" from "412 Maple Ave,
 * Apt 3, …"): what a card prints. The parser's reading is in capitals with its abbreviations
 * ("412 MAPLE AVE"). Read only from a line ending in its city, state and ZIP whose street begins
 * as the parser's does (the same house number, or PO Box), so a name or a company before the street
 * is never printed as one.
 */
export function streetAsWritten(line: string, parsed = parseUsAddress(line).street): string | undefined {
  const [first = "", ...rest] = writtenTail(line)?.street?.split(",") ?? [];
  // Only units join the street ("Apt 3"): a county or a second town written before the state is not the street's.
  const notUnit = rest.findIndex((part) => !UNIT_PART.test(part.trim()));
  const units = (notUnit < 0 ? rest : rest.slice(0, notUnit)).map((part) => part.trim());
  const written = text([first, ...units].join(" "));
  const firstWord = (street: string) => street.split(/\s+/)[0]!.toUpperCase();
  const startsAsStreet = written && /^(\d|P\.?\s*O\.?\s+Box\b)/i.test(written);
  return startsAsStreet && parsed && firstWord(written) === firstWord(parsed) ? written : undefined;
}

/** The town as its ZIP's own place spells it, when the town written is that place in any case ("SPRINGFIELD"). */
export function townAsZipSpellsIt(city: string | undefined, zip: string | undefined): string | undefined {
  const place = /^\d{5}/.test(zip ?? "") ? zipPlaces.lookup(zip!.slice(0, 5)) : undefined;
  return city && place && sameName(city, place.city) ? place.city : city;
}

/** A one-line address read for print: the parser's parts, with the street as written and the town as its ZIP spells it. */
export function printedPartsOf(line: string): Address {
  const parsed = parseUsAddress(line);
  return {
    ...parsed,
    street: streetAsWritten(line, parsed.street) ?? parsed.street,
    city: townAsZipSpellsIt(parsed.city, parsed.zip) ?? parsed.city,
  };
}

export type AddressCheck = { deliverable: true } | { deliverable: false; reason: string };

/**
 * A street's house number, then its name: digits with an optional letter or range ("12A", "12-14"),
 * or a Wisconsin grid number ("N64W23760 Main St"). An ordinal ("1st Ave", "3rd Floor") or a number
 * alone ("12") is not a house number on a street.
 */
const HOUSE_NUMBER = /^\s*(\d+(-\d+)?[A-Z]?|[NSEW]\d+\s*[NSEW]\d+)\s+\S/i;

/**
 * A house number no carrier route has: all zeros (what a CRM writes for "unknown") or longer than six
 * digits (US house numbers stop at six; a longer run is a phone number, an id or a typo).
 */
const IMPLAUSIBLE_HOUSE_NUMBER = /^\s*(0+|\d{7,})(?=[-\sA-Z])/i;

/**
 * A street line that ends with a whole locality of its own (", Dallas TX 75201"): a CRM field mapped
 * to the full address. Its state code and ZIP are the ones the line names.
 */
const ZIP_ENDING_STREET = /,[^,]*\b([A-Z]{2}),?\s+(\d{5})(?:-\d{4})?\s*$/i;

/**
 * One problem the offline check finds: the part of the address to correct, and the problem in
 * words (lower case, to be joined into a sentence). A ZIP that disagrees with the state or city
 * written is the ZIP's problem, as the words say.
 */
export interface AddressProblem {
  part: keyof WrittenAddress;
  words: string;
}

/**
 * The parts no address can have, at any level: a state that is no US state code, a ZIP that does
 * not exist. (What may hold at one level and not another, a ZIP of another town, is not among them.)
 */
export function impossibleParts(address: WrittenAddress): AddressProblem[] {
  const problems: AddressProblem[] = [];
  const state = text(address.state)?.toUpperCase();
  const zip = text(address.zip)?.replace(/-\d{4}$/, "");
  if (state !== undefined && !USPS_STATE_CODES.has(state)) {
    problems.push({ part: "state", words: `${state} is not a US state code` });
  }
  if (zip !== undefined && !(/^\d{5}$/.test(zip) && zipPlaces.lookup(zip))) {
    problems.push({ part: "zip", words: `ZIP ${zip} does not exist` });
  }
  return problems;
}

/** Every problem the offline check finds; empty when the address passes at this level. */
export function offlineAddressProblems(address: WrittenAddress, level: VerificationLevel): AddressProblem[] {
  const problems: AddressProblem[] = [];
  const found = (part: keyof WrittenAddress, words: string) => {
    problems.push({ part, words });
  };
  const street = text(address.street);
  const city = text(address.city);
  const state = text(address.state)?.toUpperCase();
  const zip = text(address.zip)?.replace(/-\d{4}$/, "");

  if (!street) found("street", "the address has no street");
  else if (
    level !== "relaxed" &&
    !HOUSE_NUMBER.test(street) &&
    !/\b(P\.?\s*O\.?\s*BOX|BOX)\s*\d/i.test(street)
  ) {
    found("street", `the street "${street}" has no house number`);
  } else if (level !== "relaxed" && IMPLAUSIBLE_HOUSE_NUMBER.test(street)) {
    found(
      "street",
      `the house number ${IMPLAUSIBLE_HOUSE_NUMBER.exec(street)![1]} is not a real house number`,
    );
  }
  // A state code before it: "Suite 10200" or "Unit 12345" is no locality.
  const streetEnding = street ? ZIP_ENDING_STREET.exec(street) : null;
  const streetZip =
    streetEnding && USPS_STATE_CODES.has(streetEnding[1]!.toUpperCase()) ? streetEnding[2] : undefined;
  if (streetZip && zip && /^\d{5}$/.test(zip) && streetZip !== zip) {
    // Printed, the card would carry two towns; the carrier reads the last one, the customer lives at the first.
    found("street", `the street "${street}" names ZIP ${streetZip}, but the address's ZIP is ${zip}`);
  }
  problems.push(...impossibleParts(address));
  const zipPlace = zip && /^\d{5}$/.test(zip) ? zipPlaces.lookup(zip) : undefined;
  if (zip === undefined) {
    if (level === "strict") found("zip", "the address has no ZIP");
    else if (!city || !state) found("zip", "the address has no ZIP, and no city and state to find one");
    else if (USPS_STATE_CODES.has(state) && zipPlaces.lookupByName(city, state).length === 0) {
      found("zip", `there is no ${city} in ${state}, and no ZIP`);
    }
  }
  if (zipPlace && state !== undefined && USPS_STATE_CODES.has(state) && zipPlace.state !== state) {
    found("zip", `ZIP ${zip} is in ${zipPlace.state}, not ${state}`);
  }
  if (
    zipPlace &&
    city &&
    (state === undefined || zipPlace.state === state) &&
    !sameName(zipPlace.city, city)
  ) {
    // The ZIP table names one place per ZIP; a city it does not know may be a neighbourhood's or
    // an older name the carrier still reads, and a known town beside the ZIP may be the city whose
    // name the Postal Service takes for its neighbourhoods' ZIPs ("Boston" for Allston's 02134):
    // both pass at normal, as carriers sort by ZIP. A known town far from the ZIP is a wrong
    // address. Strict wants the ZIP's own place; relaxed lets the ZIP decide.
    const isFarTown = () =>
      zipPlaces.lookupByName(city, zipPlace.state).length > 0 && !isNeighbourTown(city, zipPlace);
    if (level === "strict" || (level === "normal" && isFarTown())) {
      found("zip", `ZIP ${zip} is in ${zipPlace.city}, not ${city}`);
    }
  }
  return problems;
}

/** How an organization's addresses are checked before print: offline at its level, or by Lob at print. */
export type AddressCheckBeforePrint = { verifier: "offline"; level: VerificationLevel } | { verifier: "lob" };

/** The offline check's answer: deliverable, or the problems in one sentence. */
export function checkAddressOffline(address: WrittenAddress, level: VerificationLevel): AddressCheck {
  const problems = offlineAddressProblems(address, level);
  if (problems.length === 0) return { deliverable: true };
  return { deliverable: false, reason: problems.map((problem) => problem.words).join("; ") };
}
