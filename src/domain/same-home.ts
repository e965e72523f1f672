import { addressKey, cityOfZip, zipsOfCity } from "./address.ts";

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
 * The rule: equal streets (units included); no city, state or ZIP that both keys have may differ;
 * and they share a city or a ZIP, a missing city read from the other's ZIP ("IL 62704" is in
 * Springfield). A street alone, or with a state alone, could be anywhere and never matches.
 */
export function sameHome(a: string, b: string): boolean {
  if (a === b) return true;
  const x = keyParts(a);
  const y = keyParts(b);
  if (x.street === "" || x.street !== y.street) return false;
  const conflicts = (p: string, q: string) => p !== "" && q !== "" && p !== q;
  if (conflicts(x.city, y.city) || conflicts(x.state, y.state) || conflicts(x.zip, y.zip)) return false;
  const shares = (p: string, q: string) => p !== "" && p === q;
  return shares(cityOrZipCity(x), cityOrZipCity(y)) || shares(x.zip, y.zip);
}

/**
 * Every key the same home can be stored under (the key itself first), for an index lookup:
 * without the city, without the ZIP, with the city its ZIP names, or with each ZIP of its city
 * (at most `MAX_ZIPS_OF_CITY`) when it has none.
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
