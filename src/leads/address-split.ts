import { isMailable, parseUsAddress, placeOfZip } from "../domain/address.ts";

export interface AddressSplit {
  street: string;
  city: string;
  state: string;
  postal_code: string;
  country: string;
  full_address: string;
}

export interface PieceAddress {
  address: string;
  street: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
}

/**
 * The lead's address fields from the mailed piece: the parts stored with the piece when it has
 * them, otherwise read from its one-line address. The service mails in the US only.
 */
export function splitPieceAddress(piece: PieceAddress): AddressSplit {
  const parts =
    piece.street && isMailable(piece)
      ? {
          street: piece.street,
          city: piece.city ?? "",
          state: piece.state ?? "",
          postal_code: piece.zip ?? "",
        }
      : splitOneLine(piece.address);
  return { ...withLocalityOfZip(parts), country: "US", full_address: piece.address };
}

type SplitParts = Pick<AddressSplit, "street" | "city" | "state" | "postal_code">;

/** A card mailed with a ZIP but no city still tells the CRM its town ("62704" is Springfield, IL). */
function withLocalityOfZip(parts: SplitParts): SplitParts {
  if (parts.city && parts.state) return parts;
  const place = placeOfZip(parts.postal_code);
  if (!place) return parts;
  return { ...parts, city: parts.city || place.city, state: parts.state || place.state };
}

/**
 * A one-line address's parts as the contractor wrote them: "742 Evergreen Terrace" stays
 * "Terrace" (the address key abbreviates it), a unit written first ("Apt 5, 10 Main St, …") or in
 * a segment of its own ("10 Main St, Apt 5, …") stays on the street line, and a locality without
 * a state ("Smalltown 99999") still gives its city and ZIP.
 */
function splitOneLine(address: string): SplitParts {
  const text = address.trim();
  const normalized = parseUsAddress(text);
  // The address key's reading decides what the locality is ("12 Main Street, TX" names no city).
  const city = normalized.city ? asWritten(text, normalized.city) : "";
  const state = normalized.state;
  const zip = normalized.zip;
  const localityAt = [city, state, zip]
    .filter(Boolean)
    .map((part) => lastWordAt(text, part)?.start ?? 0)
    .filter((index) => index > 0);
  const streetPart = localityAt.length > 0 ? text.slice(0, Math.min(...localityAt)) : text;
  return { street: streetLine(streetPart) || text, city, state, postal_code: zip };
}

const UNIT_ONLY =
  /^(?:apt|apartment|unit|ste|suite|#|no\.?|bldg|building|fl|floor|rm|room|lot|trlr|dept)\s*#?\s*[\p{L}\p{N}-]+$/iu;

/** "Apt 5, 10 Main St," → "10 Main St Apt 5"; "10 Main St, Apt 5" → "10 Main St Apt 5". */
function streetLine(streetPart: string): string {
  const segments = streetPart
    .split(",")
    .map((segment) => segment.trim())
    .filter(Boolean);
  const units = segments.filter((segment) => UNIT_ONLY.test(segment));
  const rest = segments.filter((segment) => !UNIT_ONLY.test(segment));
  return [...rest, ...units].join(rest.length > 0 ? " " : ", ");
}

const folded = (text: string) => text.normalize("NFD").replace(/\p{M}/gu, "").toUpperCase();

/** The locality as the address spells it ("SAO PAULO" from the key → "São Paulo"). */
function asWritten(text: string, part: string): string {
  const at = lastWordAt(text, part);
  return at ? text.slice(at.start, at.end) : part;
}

/** Where `word` last stands as a whole word in `text`, ignoring case and accents. */
function lastWordAt(text: string, word: string): { start: number; end: number } | undefined {
  // Each folded character remembers the offset of the original character it came from.
  let haystack = "";
  const origin: number[] = [];
  for (let offset = 0; offset < text.length; ) {
    const character = String.fromCodePoint(text.codePointAt(offset)!);
    for (const unit of folded(character)) {
      haystack += unit;
      origin.push(offset);
    }
    offset += character.length;
  }
  origin.push(text.length);
  const needle = folded(word);
  const isWordChar = (character: string | undefined) =>
    character !== undefined && /[\p{L}\p{N}]/u.test(character);
  for (
    let at = haystack.lastIndexOf(needle);
    at >= 0;
    at = at === 0 ? -1 : haystack.lastIndexOf(needle, at - 1)
  ) {
    if (!isWordChar(haystack[at - 1]) && !isWordChar(haystack[at + needle.length])) {
      return { start: origin[at]!, end: origin[at + needle.length]! };
    }
  }
  return undefined;
}
