/**
 * Whether two address keys (`addressKey`: "STREET, CITY STATE ZIP", each locality part optional)
 * name the same home when one of them lacks part of its locality: "2004 PINE RD, SPRINGFIELD IL"
 * and "2004 PINE RD, SPRINGFIELD IL 62704" do; so do "2005 BIRCH BLVD, 62704" and
 * "2005 BIRCH BLVD, SPRINGFIELD IL 62704". The streets must be equal, no part both keys have may
 * differ, and they must share a city or a ZIP (a street alone, or a state alone, could be anywhere).
 */
export function sameHome(a: string, b: string): boolean {
  if (a === b) return true;
  const x = keyParts(a);
  const y = keyParts(b);
  if (x.street === "" || x.street !== y.street) return false;
  const conflicts = (p: string, q: string) => p !== "" && q !== "" && p !== q;
  if (conflicts(x.city, y.city) || conflicts(x.state, y.state) || conflicts(x.zip, y.zip)) return false;
  const shares = (p: string, q: string) => p !== "" && p === q;
  return shares(x.city, y.city) || shares(x.zip, y.zip);
}

export interface KeyParts {
  street: string;
  city: string;
  state: string;
  zip: string;
}

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
