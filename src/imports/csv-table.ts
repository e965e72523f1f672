import type { Readable } from "node:stream";
import { parse } from "csv-parse";
import { uspsStateCode } from "../domain/address.ts";
import { USPS_STATE_CODES } from "../domain/deliverable-address.ts";
import { zipPlaces } from "../domain/zip-places.ts";
import { AppError, invalidPayload } from "../errors.ts";

/** An upload is at most what the developer API takes in one body (1 MiB). */
export const CSV_MAX_BYTES = 1_048_576;

/**
 * Columns a file may have. A spreadsheet export has a few dozen; each mapped cell is found by
 * its column's position, so a header of 400 000 one-letter columns cost seconds of CPU.
 */
export const CSV_MAX_COLUMNS = 200;

export interface CsvRecord {
  /** The record's line in the file (the header is line 1), as a spreadsheet numbers it. */
  line: number;
  cells: string[];
}

export interface CsvTable {
  columns: string[];
  records: CsvRecord[];
}

export const csvTooLarge = () =>
  new AppError(
    413,
    "payload_too_large",
    `The file is larger than ${CSV_MAX_BYTES} bytes; split it into smaller files.`,
  );

/** What a person is told when the file is a spreadsheet, a PDF or an image rather than CSV text. */
export const notCsv = () =>
  invalidPayload(
    "This file is not a CSV file. In your spreadsheet, choose File → Save as (or Download) → CSV, then upload that file.",
  );

/**
 * Commas one line may hold before the parser sees it: ten per allowed column, so quoted notes full of
 * commas pass, while a line of a million commas is refused before the parser builds a million cells
 * (seconds of CPU on the event loop, for every tenant).
 */
const MAX_COMMAS_PER_LINE = CSV_MAX_COLUMNS * 10;

const tooManyColumns = () =>
  invalidPayload(
    `A line of the file has more than ${CSV_MAX_COLUMNS} columns; a file may have at most ${CSV_MAX_COLUMNS}.`,
  );

/** Counts the commas of the line being read across chunks; true once a line holds too many. */
function commaCounter(): (chunk: Buffer) => boolean {
  let commas = 0;
  return (chunk) => {
    for (let index = 0; index < chunk.length; index++) {
      const byte = chunk[index];
      if (byte === 0x0a || byte === 0x0d) commas = 0;
      else if (byte === 0x2c && ++commas > MAX_COMMAS_PER_LINE) return true;
    }
    return false;
  };
}

/** Openings of the files people pick by mistake: xlsx/zip, xls, PDF, PNG, JPEG, GIF. */
const BINARY_SIGNATURES = [
  [0x50, 0x4b, 0x03, 0x04],
  [0xd0, 0xcf, 0x11, 0xe0],
  [0x25, 0x50, 0x44, 0x46],
  [0x89, 0x50, 0x4e, 0x47],
  [0xff, 0xd8, 0xff],
  [0x47, 0x49, 0x46, 0x38],
];

/** A first chunk that opens like a binary file, or holds a NUL byte (text never does), is not CSV. */
export function looksBinary(chunk: Buffer): boolean {
  if (BINARY_SIGNATURES.some((signature) => signature.every((byte, index) => chunk[index] === byte)))
    return true;
  return chunk.subarray(0, 4096).includes(0);
}

/** The CSV parser's failure in words a person can act on (its own text names internal options). */
function unreadableCsv(error: unknown) {
  const { code, lines } = error as { code?: string; lines?: number };
  const where = lines ? `Line ${lines}` : "A line";
  if (
    code === "CSV_QUOTE_NOT_CLOSED" ||
    code === "INVALID_OPENING_QUOTE" ||
    code === "CSV_INVALID_CLOSING_QUOTE"
  )
    return invalidPayload(
      `${where} of the file has a quote mark (") that is not closed, so the file cannot be read. Remove the stray quote, or save the file again from your spreadsheet as CSV.`,
    );
  return invalidPayload(
    `${where} of the file cannot be read as CSV. Save the file again from your spreadsheet as CSV and upload that file.`,
  );
}

/** Whitespace, control and format characters and the code points shown as nothing. */
const NOTHING_SHOWN = /^[\p{White_Space}\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]*$/u;

/** A cell with nothing to see: empty, or only characters no one can see. */
const showsNothing = (cell: string) => NOTHING_SHOWN.test(cell);

/**
 * Reads a CSV upload as it arrives: a header line, then at most `maxRecords` records (a file
 * with more is refused once the next one is read, without reading the rest). The byte limit is
 * counted on the stream itself, so a body without a Content-Length is held to it too.
 */
export async function readCsvTable(body: Readable, options: { maxRecords: number }): Promise<CsvTable> {
  let bytes = 0;
  const parser = parse({
    bom: true,
    relax_column_count: true,
    // An inch mark inside a cell (`6" gutters`, common in contractors' notes) is kept as written; a
    // cell that opens with a quote must still close it.
    relax_quotes: true,
    skip_empty_lines: true,
    trim: true,
    info: true,
  });
  const overlong = commaCounter();
  const limited = new Promise<void>((resolve, reject) => {
    body.on("data", (chunk: Buffer) => {
      if (overlong(chunk)) {
        body.unpipe(parser);
        body.resume();
        parser.destroy(tooManyColumns());
        reject(tooManyColumns());
      }
      if (bytes === 0 && looksBinary(chunk)) {
        body.unpipe(parser);
        body.resume();
        parser.destroy(notCsv());
        reject(notCsv());
      }
      bytes += chunk.length;
      if (bytes > CSV_MAX_BYTES) {
        body.unpipe(parser);
        body.resume();
        parser.destroy(csvTooLarge());
        reject(csvTooLarge());
      }
    });
    body.on("end", resolve);
    body.on("error", reject);
  });
  limited.catch(() => undefined);
  body.pipe(parser);
  let columns: string[] | undefined;
  const records: CsvRecord[] = [];
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: string[];
      info: { lines: number };
    }>) {
      if (record.length > CSV_MAX_COLUMNS) {
        parser.destroy();
        body.resume();
        throw invalidPayload(
          `Line ${info.lines} has ${record.length} columns; a file may have at most ${CSV_MAX_COLUMNS}.`,
        );
      }
      // A NUL byte past the first chunk (looksBinary reads only the opening): text never holds one,
      // and PostgreSQL cannot store it, so the file is refused here rather than failing its write.
      if (record.some((cell) => cell.includes("\u0000"))) {
        parser.destroy();
        body.resume();
        throw invalidPayload(
          `Line ${info.lines} holds a NUL character, which text never has: the file is not plain CSV text. Save it again from your spreadsheet as CSV and upload that file.`,
        );
      }
      if (!columns) {
        columns = record.map((name, index) => name || `Column ${index + 1}`);
        continue;
      }
      // A line that shows nothing is not a row: blank, or holding only what a spreadsheet or an editor
      // shows as nothing (a quoted space, a DOS end-of-file mark Ctrl-Z, a zero-width space). Counted,
      // the preview read a file's 5 rows as 6 and the upload refused or skipped the sixth.
      if (record.every(showsNothing)) continue;
      if (records.length === options.maxRecords) {
        parser.destroy();
        body.resume();
        throw invalidPayload(
          `The file has more than ${options.maxRecords} rows; upload at most ${options.maxRecords} at a time.`,
        );
      }
      records.push({ line: info.lines, cells: record });
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw unreadableCsv(error);
  }
  await limited;
  if (!columns) throw invalidPayload("The file is empty: it needs a header line and at least one row.");
  return { columns, records };
}

/** The fields an upload can map a column to, each with the header names it is guessed from. */
const HEADER_GUESSES: Record<string, RegExp> = {
  street:
    /^(street|street ?address|address ?(line ?)?1?|addr(ess)?|property ?address|service ?address|full ?address|address)$/,
  city: /^(city|town|locality|municipality)$/,
  state: /^(state|st|province|region|state ?code)$/,
  zip: /^(zip|zip ?code|postal ?code|postcode|zip5|postal)$/,
  notes: /^(notes?|comments?|memo)$/,
  customer_name: /^(customer|customer ?name|client|client ?name|name|full ?name|homeowner)$/,
  external_id: /^(id|external ?id|job ?id|job ?(number|no|num)|record ?id|customer ?id)$/,
  completed_at:
    /^(completed|completed ?(at|on|date)|date|job ?date|last ?job|last ?job ?date|service ?date|closed ?(at|on|date)?)$/,
  job_type:
    /^(job ?type|type|type of (job|work|service)|service|service ?type|work ?type|job ?kind|category)$/,
};

export type MappableField = keyof typeof HEADER_GUESSES;

/**
 * For each wanted field, the first column whose header reads like it (case, _, - and . ignored;
 * "#" read as "number", so "Job #" is the job number); else null.
 */
export function guessMapping<F extends string>(
  columns: readonly string[],
  fields: readonly F[],
): Record<F, string | null> {
  const plain = (header: string) =>
    header
      .toLowerCase()
      .replace(/#/g, " number ")
      .replace(/[_\-.]+/g, " ")
      .replace(/\s+/g, " ")
      .trim();
  const taken = new Set<string>();
  const mapping = {} as Record<F, string | null>;
  for (const field of fields) {
    const pattern = HEADER_GUESSES[field];
    const column = pattern
      ? columns.find((name) => !taken.has(name) && pattern.test(plain(name)))
      : undefined;
    if (column) taken.add(column);
    mapping[field] = column ?? null;
  }
  return mapping;
}

/** A record's cell under the mapped column ('' when unmapped or missing). */
export function cellOf(table: CsvTable, record: CsvRecord, column: string | null | undefined): string {
  if (!column) return "";
  const index = table.columns.indexOf(column);
  return index < 0 ? "" : (record.cells[index] ?? "").trim();
}

/** The one-line address of a record: street, city, then state and ZIP, as a person writes it. */
export function addressOf(parts: { street: string; city: string; state: string; zip: string }): string {
  const region = [parts.state, parts.zip].filter(Boolean).join(" ");
  return [parts.street, parts.city, region].filter(Boolean).join(", ");
}

/** The state and ZIP that end a line ("IL 62704", "Illinois", "62704"): the region addressOf writes last. */
function regionOf(part: string): { state: string | undefined } | undefined {
  const written = /^(?<state>\D*?)[\s,]*(?<zip>\d{5}(?:-\d{4})?)?$/.exec(part);
  const stateWritten = written?.groups?.state?.trim();
  const zip = written?.groups?.zip;
  if (!written || (!stateWritten && !zip)) return undefined;
  if (!stateWritten) return { state: zipPlaces.lookup(zip!.slice(0, 5))?.state };
  const state = uspsStateCode(stateWritten)?.toUpperCase();
  return state && USPS_STATE_CODES.has(state) ? { state } : undefined;
}

/**
 * True for a line addressOf wrote from a record whose street cell was empty: only its town, state or
 * ZIP ("Springfield, IL 62704", "IL 62704", "62704"). Such a row has no home to mail; the geocoder
 * would place it at best on its ZIP's centre. A first part is read as the town only when it is a
 * known town of the line's state (or its ZIP's) and holds no digit, so a street written without its
 * house number and city ("Evergreen Terrace, IL 62704") is still a street; a line of one part
 * that is no state or ZIP ("Springfield") cannot be told from a street, and is not read as streetless.
 */
export function namesNoStreet(line: string): boolean {
  const parts = line
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  if (parts.length === 0 || parts.length > 2) return false;
  const region = regionOf(parts.at(-1)!);
  if (!region) return false;
  if (parts.length === 1) return true;
  const town = parts[0]!;
  return (
    !/\d/.test(town) && region.state !== undefined && zipPlaces.lookupByName(town, region.state).length > 0
  );
}
