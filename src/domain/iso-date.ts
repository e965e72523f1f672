/** A date or date-time read from ISO-8601 text (extended format, as APIs and CRMs send it). */
export interface IsoDate {
  /** The instant: a date alone is its UTC midnight; a date-time without an offset is UTC. */
  at: Date;
  dateOnly: boolean;
  /** The calendar date as written (`YYYY-MM-DD`), before any offset is applied. */
  calendarDate: string;
}

/**
 * Years read as dates. Outside them a value is refused rather than stored: PostgreSQL has no
 * year 0 (a 180-day window before 0001-01-01 fails there), and JavaScript reads years 0-99 as
 * 1900-1999.
 */
/**
 * How far ahead of the server clock a date of something that already happened may be (a CRM's
 * clock and time-zone mistakes): events' occurred_at (spec: 24 hours), recorded mailed_at.
 */
export const MAX_CLOCK_LEAD_MS = 24 * 60 * 60 * 1000;

export const ISO_YEAR_RANGE = { earliest: 1000, latest: 9999 } as const;

const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** Minutes east of UTC of an offset (`Z`, `+02`, `+0200`, `-05:30`), or undefined if impossible. */
function offsetMinutes(zone: string): number | undefined {
  if (zone === "Z" || zone === "z") return 0;
  const digits = zone.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2, 4) || "0");
  if (hours > 23 || minutes > 59) return undefined;
  return (zone.startsWith("-") ? -1 : 1) * (hours * 60 + minutes);
}

/**
 * Parses `2026-05-01`, `2026-05-01T09:30`, `2026-05-01 09:30:00.123+02:00` and the like. Returns
 * undefined for anything else, for impossible dates or times (02-30, 25:00, an offset of +25:00)
 * and for years outside ISO_YEAR_RANGE. Surrounding whitespace is ignored.
 */
export function parseIsoDate(text: string): IsoDate | undefined {
  const match = ISO_DATE.exec(text.trim());
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second = "00", fraction = "", zone = "Z"] = match;
  const fields = [year, month, day, hour ?? "00", minute ?? "00", second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [y, mo, d, h, mi, s] = fields;
  const utc = Date.UTC(y, mo - 1, d, h, mi, s, Number(fraction.padEnd(3, "0").slice(0, 3)));
  const check = new Date(utc);
  const roundTrips =
    check.getUTCFullYear() === y &&
    check.getUTCMonth() === mo - 1 &&
    check.getUTCDate() === d &&
    check.getUTCHours() === h &&
    check.getUTCMinutes() === mi &&
    check.getUTCSeconds() === s;
  const offset = offsetMinutes(zone);
  if (!roundTrips || offset === undefined) return undefined;
  const at = new Date(utc - offset * 60_000);
  // The range holds for the instant: 9999-12-31T23:00-05:00 is in year 10000 once in UTC.
  // (Years 0-99, which Date.UTC reads as 1900-1999, already failed the round trip.)
  if (at.getUTCFullYear() < ISO_YEAR_RANGE.earliest || at.getUTCFullYear() > ISO_YEAR_RANGE.latest) {
    return undefined;
  }
  return {
    at,
    dateOnly: hour === undefined,
    calendarDate: `${year}-${month}-${day}`,
  };
}

let lastIsoTime = Number.NaN;
let lastIso = "";

/**
 * `date.toISOString()`, remembered for the last time value asked: one event's piece, job and
 * timestamps all carry the same instant, formatted once instead of three or four times.
 */
export function isoOf(date: Date): string {
  const time = date.getTime();
  if (time !== lastIsoTime) {
    lastIso = date.toISOString();
    lastIsoTime = time;
  }
  return lastIso;
}
