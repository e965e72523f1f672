import { isTownOfState, placeOfZip, uspsStateCode } from "../domain/address.ts";
import { invalidPayload } from "../errors.ts";

/**
 * A CSV upload's ZIP cell as the ZIP it names. Excel reads a ZIP column as numbers and drops the
 * leading zeros of New England's, New Jersey's, Puerto Rico's and the Virgin Islands' ZIPs
 * (02134 becomes 2134, 00601 becomes 601, 021341234 becomes 21341234); such a cell has no other
 * reading as a ZIP. Its zeros are put back when the ZIP then names a place of the row's state (or,
 * for a row without a state, of the state of its town); a cell that is no ZIP refuses its row in
 * words (docs/addresses.md, "ZIPs a spreadsheet cut short").
 */
export interface ZipOfRow {
  /** The ZIP as the row's address line writes it ("" for an empty cell). */
  zip: string;
  /** Its leading zeros were put back. */
  restored: boolean;
}

/** A ZIP, or a ZIP+4 with or without its dash, as written: taken as it is. */
const WHOLE_ZIP = /^\d{5}(?:-?\d{4})?$/;
/** A ZIP of 3 or 4 digits, with a ZIP+4's last four after a dash or not. */
const SHORT_ZIP = /^(\d{3,4})(?:-(\d{4}))?$/;
/** A ZIP+4 of 7 or 8 digits without its dash. */
const SHORT_UNDASHED_ZIP_PLUS_4 = /^\d{7,8}$/;

interface ZerosPutBack {
  zip5: string;
  plus4: string | undefined;
  /** "0" or "00": what was put back. */
  zeros: string;
}

/** The ZIP5 and the ZIP+4's last four of a cell missing its leading zeros, or undefined. */
function withZerosPutBack(cell: string): ZerosPutBack | undefined {
  if (SHORT_UNDASHED_ZIP_PLUS_4.test(cell)) {
    const whole = cell.padStart(9, "0");
    return { zip5: whole.slice(0, 5), plus4: whole.slice(5), zeros: "0".repeat(9 - cell.length) };
  }
  const short = SHORT_ZIP.exec(cell);
  if (!short) return undefined;
  const digits = short[1] as string;
  return { zip5: digits.padStart(5, "0"), plus4: short[2], zeros: "0".repeat(5 - digits.length) };
}

/** A cell quoted in a refusal is cut at 30 characters: the row's line names it in full. */
const CELL_SHOWN_MAX = 30;
const clipped = (cell: string) => (cell.length > CELL_SHOWN_MAX ? `${cell.slice(0, CELL_SHOWN_MAX)}…` : cell);
const shown = (cell: string) => `"${clipped(cell)}"`;

/**
 * The row's ZIP from its ZIP cell (trimmed) and its state and city cells. Throws a 422 naming the
 * `zip` when the cell is no ZIP, or a short one whose place is not the row's.
 */
export function zipOfRow(cell: string, row: { state: string; city: string }): ZipOfRow {
  if (cell === "" || WHOLE_ZIP.test(cell)) return { zip: cell, restored: false };
  const restored = withZerosPutBack(cell);
  if (!restored) {
    throw invalidPayload(
      `zip: ZIP ${shown(cell)} is not a ZIP code. Write its 5 digits (like 02134) or its ZIP+4 (like 02134-1234).`,
    );
  }
  assertZipOfRow(cell, restored, row);
  return { zip: restored.plus4 ? `${restored.zip5}-${restored.plus4}` : restored.zip5, restored: true };
}

/** The ZIP the short cell becomes is a place of the row's state, else of its town's state; else a 422 in words. */
function assertZipOfRow(
  cell: string,
  { zip5: zip, zeros }: ZerosPutBack,
  row: { state: string; city: string },
) {
  const place = placeOfZip(zip);
  if (!place) {
    throw invalidPayload(
      `zip: ZIP ${shown(cell)} does not exist, nor does ${zip} (with its leading ${zeros} put back). Write the row's 5-digit ZIP.`,
    );
  }
  const where = `${place.city}, ${place.state}`;
  const readAs = `read with its leading ${zeros} put back, it is ${zip}, in ${where}. Write the row's 5-digit ZIP.`;
  const state = uspsStateCode(row.state)?.toUpperCase();
  if (state !== undefined) {
    if (state === place.state) return;
    throw invalidPayload(`zip: ZIP ${shown(cell)} is not in ${clipped(row.state)}: ${readAs}`);
  }
  if (row.city !== "") {
    if (isTownOfState(row.city, place.state)) return;
    throw invalidPayload(`zip: ZIP ${shown(cell)} does not match the town ${clipped(row.city)}: ${readAs}`);
  }
  throw invalidPayload(
    `zip: ZIP ${shown(cell)} is missing its leading ${zeros}, and the row names no state or town to check it by. Write the ZIP with its ${zeros} (${zip}, ${where}), or choose the column that holds the state.`,
  );
}
