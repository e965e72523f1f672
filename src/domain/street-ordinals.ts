/**
 * "FIFTH AVE" and "5TH AVE", "W TWENTY-FIRST ST" and "W 21ST ST": one numbered street written in
 * words or in figures. Address keys write it in figures, as the USPS files do, so both spellings
 * are one home. Ordinals from FIRST to ONE HUNDRED NINETY-NINTH are read, as a whole word or words
 * of a folded street line ("TWENTY FIRST", "TWENTY-FIRST"); units (`#…`) and other words are left.
 */

const UNIT_ORDINALS = ["FIRST", "SECOND", "THIRD", "FOURTH", "FIFTH", "SIXTH", "SEVENTH", "EIGHTH", "NINTH"];
const TEEN_ORDINALS = [
  "TENTH",
  "ELEVENTH",
  "TWELFTH",
  "THIRTEENTH",
  "FOURTEENTH",
  "FIFTEENTH",
  "SIXTEENTH",
  "SEVENTEENTH",
  "EIGHTEENTH",
  "NINETEENTH",
];
const TENS = ["TWENTY", "THIRTY", "FORTY", "FIFTY", "SIXTY", "SEVENTY", "EIGHTY", "NINETY"];
const TENS_ORDINALS = TENS.map((tens) => `${tens.slice(0, -1)}IETH`);

/** Each ordinal word (or hyphenated pair) below a hundred, with its number. */
const ORDINAL_WORDS = new Map<string, number>([
  ...UNIT_ORDINALS.map((word, index) => [word, index + 1] as const),
  ...TEEN_ORDINALS.map((word, index) => [word, index + 10] as const),
  ...TENS_ORDINALS.map((word, index) => [word, (index + 2) * 10] as const),
  ...TENS.flatMap((tens, t) =>
    UNIT_ORDINALS.map((unit, u) => [`${tens}-${unit}`, (t + 2) * 10 + u + 1] as const),
  ),
]);
const TENS_WORDS = new Map(TENS.map((tens, index) => [tens, (index + 2) * 10]));

/** The words an ordinal can end with: what a stored key is searched for (migration 0540). */
export const LAST_WORDS_OF_ORDINALS: readonly string[] = [...ORDINAL_WORDS.keys(), "HUNDREDTH"];

/** `street` (a folded street line) with its ordinals written in figures: "12 W 21ST ST". */
export function withOrdinalsInFigures(street: string): string {
  const words = street.split(" ");
  const out: string[] = [];
  for (let at = 0; at < words.length; ) {
    const ordinal = ordinalAt(words, at);
    if (ordinal) {
      out.push(inFigures(ordinal.value));
      at += ordinal.length;
    } else {
      out.push(words[at] as string);
      at += 1;
    }
  }
  return out.join(" ");
}

interface Ordinal {
  value: number;
  length: number;
}

/** The ordinal that starts at `words[at]`, with the number of words it takes. */
function ordinalAt(words: readonly string[], at: number): Ordinal | undefined {
  if (words[at] === "HUNDREDTH") return { value: 100, length: 1 };
  if (words[at] !== "ONE") return belowHundredAt(words, at);
  if (words[at + 1] === "HUNDREDTH") return { value: 100, length: 2 };
  const rest = words[at + 1] === "HUNDRED" ? belowHundredAt(words, at + 2) : undefined;
  return rest && { value: 100 + rest.value, length: 2 + rest.length };
}

function belowHundredAt(words: readonly string[], at: number): Ordinal | undefined {
  const word = words[at] ?? "";
  const single = ORDINAL_WORDS.get(word);
  if (single !== undefined) return { value: single, length: 1 };
  const tens = TENS_WORDS.get(word);
  const unit = UNIT_ORDINALS.indexOf(words[at + 1] ?? "");
  return tens !== undefined && unit >= 0 ? { value: tens + unit + 1, length: 2 } : undefined;
}

/** 1 → "1ST", 12 → "12TH", 22 → "22ND", 113 → "113TH". */
function inFigures(value: number): string {
  const lastTwo = value % 100;
  const suffix = lastTwo >= 11 && lastTwo <= 13 ? "TH" : (["TH", "ST", "ND", "RD"][value % 10] ?? "TH");
  return `${value}${suffix}`;
}
