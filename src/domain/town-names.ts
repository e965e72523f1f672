/**
 * One town, however its name's first word is written: "St Paul", "St. Paul" and "Saint Paul" are
 * one place, as are "Ft Worth" and "Fort Worth", "Mt Vernon" and "Mount Vernon". The USPS table
 * (the `zipcodes` package) writes most such names in full (SAINT PAUL, FORT WORTH, MOUNT VERNON)
 * and a few abbreviated (ST JAMES IL, FT MITCHELL KY, MT ZION IL), and CRMs write them either way;
 * address keys, ZIP lookups by town and the deliverability check compare the spelled-out form.
 * Only a first word followed by more words is spelled out: a town called "Mt" alone is left, and
 * "PT" (Point or Port) is not guessed.
 */
const SPELLED_OUT: Record<string, string> = { ST: "SAINT", STE: "SAINTE", FT: "FORT", MT: "MOUNT" };

/** "ST", "FT", "MT", "STE": a word a town's name may open with, abbreviated. */
export const isAbbreviatedTownWord = (foldedWord: string) => Object.hasOwn(SPELLED_OUT, foldedWord);

/** A town's name already folded (upper case, single spaces), its abbreviated first word spelled out. */
export function spelledOutTown(foldedName: string): string {
  const space = foldedName.indexOf(" ");
  if (space <= 0) return foldedName;
  const first = foldedName.slice(0, space);
  return isAbbreviatedTownWord(first) ? SPELLED_OUT[first] + foldedName.slice(space) : foldedName;
}

/**
 * A town's name as written ("St. Paul", "fort worth", "Española", "McLean", "Winston-Salem") in the
 * form every spelling of it shares ("SAINTPAUL", "FORTWORTH", "ESPANOLA", "MCLEAN", "WINSTONSALEM";
 * the ZIP table writes MC LEAN and WINSTON SALEM): upper case, accents off, the abbreviated first
 * word spelled out, then letters and digits alone.
 */
export function townKey(name: string): string {
  const words = name
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toUpperCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
  return spelledOutTown(words).replaceAll(" ", "");
}
