import { addressKey, cityOfZip, zipsOfCity } from "./address.ts";
import { townKey } from "./town-names.ts";

/**
 * One home written with more or less of its locality. Address keys (`addressKey`: "STREET, CITY
 * STATE ZIP", each locality part optional) differ when a CRM leaves out the city or the ZIP:
 * "2004 PINE RD, SPRINGFIELD IL" and "2004 PINE RD, SPRINGFIELD IL 62704" are one home, as are
 * "2005 BIRCH BLVD, IL 62704" and "2005 BIRCH BLVD, SPRINGFIELD IL 62704".
 */

export interface KeyParts {
  street: string;
  city: string;
  state: string;
  zip: string;
}

/**
 * The rule: equal streets (units included); no state or ZIP that both keys have may differ; and
 * either they share a ZIP and one of them names that ZIP's own town or none (a home written with its
 * neighbourhood or borough, "HOLLYWOOD CA 90028", is the ZIP's town's "LOS ANGELES CA 90028"), or no
 * towns both have differ and they share a town or a ZIP, a missing town read from the other's ZIP
 * ("IL 62704" is in Springfield), or one has no ZIP and names the other's ZIP's own town ("LOS ANGELES
 * CA" is "HOLLYWOOD CA 90028"). Towns compare by their letters (`townKey`: "WINSTON-SALEM" is
 * "WINSTON SALEM"). A street alone, or with a state alone, could be anywhere and never matches.
 */
export function sameHome(a: string, b: string): boolean {
  if (a === b) return true;
  const x = keyParts(a);
  const y = keyParts(b);
  if (x.street === "" || x.street !== y.street) return false;
  if (conflicts(x.state, y.state) || conflicts(x.zip, y.zip)) return false;
  if (shares(x.zip, y.zip) && (namesZipTown(x) || namesZipTown(y))) return true;
  if (namesTheOthersZipTown(x, y) || namesTheOthersZipTown(y, x)) return true;
  if (conflicts(townKey(x.city), townKey(y.city))) return false;
  return shares(townKey(cityOrZipCity(x)), townKey(cityOrZipCity(y))) || shares(x.zip, y.zip);
}

const conflicts = (p: string, q: string) => p !== "" && q !== "" && p !== q;
const shares = (p: string, q: string) => p !== "" && p === q;

/** The key names no town, or its ZIP's own ("BROOKLYN NY 11231"; not "NEW YORK NY 11231"). */
const namesZipTown = (parts: KeyParts) =>
  parts.city === "" || townKey(parts.city) === townKey(cityOfZip(parts.zip));

/**
 * A key without a ZIP that names the other's ZIP's own town: "LOS ANGELES CA" is the home written
 * "HOLLYWOOD CA 90028" (90028 is in Los Angeles), as a ZIP-less key of the neighbourhood is not.
 */
const namesTheOthersZipTown = (zipless: KeyParts, zipped: KeyParts) =>
  zipless.zip === "" &&
  zipless.city !== "" &&
  zipped.zip !== "" &&
  townKey(zipless.city) === townKey(cityOfZip(zipped.zip));

/**
 * Every key the same home can be stored under (the key itself first), for an index lookup:
 * without the city, without the ZIP, with the ZIP's own town, or with each ZIP of its city (at
 * most `MAX_ZIPS_OF_CITY`) when it has none. A home stored with a neighbourhood ("HOLLYWOOD CA
 * 90028") is not among them: lookups by the street (`streetOfKey`, then `sameHome`) find it.
 */
export function keysOfSameHome(key: string): string[] {
  const parts = keyParts(key);
  if (parts.street === "" || (!parts.city && !parts.zip)) return [key];
  const of = (city: string, state: string, zip: string) =>
    addressKey({ street: parts.street, city, state, zip, country: "US" });
  const keys = new Set([key]);
  if (parts.zip) {
    const city = cityOrZipCity(parts);
    keys.add(of("", parts.state, parts.zip));
    const zipTown = cityOfZip(parts.zip);
    if (zipTown) {
      keys.add(of(zipTown, parts.state, parts.zip));
      keys.add(of(zipTown, parts.state, ""));
    }
    if (city) {
      keys.add(of(city, parts.state, parts.zip));
      keys.add(of(city, parts.state, ""));
    }
  } else {
    for (const zip of zipsOfCity(parts.city, parts.state, MAX_ZIPS_OF_CITY)) {
      keys.add(of(parts.city, parts.state, zip));
      keys.add(of("", parts.state, zip));
    }
  }
  return [...keys].filter((candidate) => sameHome(candidate, key));
}

const MAX_ZIPS_OF_CITY = 200;

const cityOrZipCity = (parts: KeyParts) => parts.city || cityOfZip(parts.zip);

/**
 * How many of a street's pieces a lookup by street reads before `sameHome` picks the home's: the
 * same number and street in an organization's other towns, newer than the home's own, never come
 * near it (attribution's candidates, the frequency cap's earlier card).
 */
export const STREET_CANDIDATES = 200;

/** The street of a key: what comes before its first ", " (the customers_by_street index). */
export function streetOfKey(key: string): string {
  const comma = key.indexOf(", ");
  return comma === -1 ? key : key.slice(0, comma);
}

/** A key's parts; its locality ends with an optional two-letter state and an optional ZIP. */
export function keyParts(key: string): KeyParts {
  const street = streetOfKey(key);
  const words = key
    .slice(street.length + 2)
    .split(" ")
    .filter(Boolean);
  const zip = /^\d{5}$/.test(words.at(-1) ?? "") ? words.pop()! : "";
  const state = /^[A-Z]{2}$/.test(words.at(-1) ?? "") ? words.pop()! : "";
  return { street, city: words.join(" "), state, zip };
}
