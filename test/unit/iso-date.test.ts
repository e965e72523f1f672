import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseIsoDate } from "../../src/domain/iso-date.ts";

describe("ISO-8601 dates", () => {
  it("reads dates and date-times, UTC without an offset, keeping the calendar date as written", () => {
    const cases: [string, string, boolean, string][] = [
      ["2026-05-01", "2026-05-01T00:00:00.000Z", true, "2026-05-01"],
      ["2026-05-01T09:30", "2026-05-01T09:30:00.000Z", false, "2026-05-01"],
      ["2026-05-01 09:30:15.1234567Z", "2026-05-01T09:30:15.123Z", false, "2026-05-01"],
      // ISO-8601 sets no limit on a fraction's digits; past milliseconds they are dropped.
      ["2026-05-01T09:30:15.99999999999Z", "2026-05-01T09:30:15.999Z", false, "2026-05-01"],
      ["2026-05-01T01:00:00+02:00", "2026-04-30T23:00:00.000Z", false, "2026-05-01"],
      ["2026-05-01T01:00:00-0530", "2026-05-01T06:30:00.000Z", false, "2026-05-01"],
      ["2026-05-01T01:00:00+02", "2026-04-30T23:00:00.000Z", false, "2026-05-01"],
      ["  2026-05-01t09:30:00z ", "2026-05-01T09:30:00.000Z", false, "2026-05-01"],
      ["1000-01-01", "1000-01-01T00:00:00.000Z", true, "1000-01-01"],
      ["2024-02-29T23:59:59Z", "2024-02-29T23:59:59.000Z", false, "2024-02-29"],
    ];
    for (const [text, iso, dateOnly, calendarDate] of cases) {
      const parsed = parseIsoDate(text);
      assert.ok(parsed, text);
      assert.deepEqual(
        { at: parsed.at.toISOString(), dateOnly: parsed.dateOnly, calendarDate: parsed.calendarDate },
        { at: iso, dateOnly, calendarDate },
        text,
      );
    }
  });

  it("refuses impossible dates and times, bad offsets, other forms and years outside 1000-9999", () => {
    for (const text of [
      "2023-02-29",
      "2024-13-01",
      "2024-05-01T99:99:99Z",
      "2024-05-01T25:00:00Z",
      "2024-05-01T10:61",
      "2024-05-01T10:00:60Z",
      "2024-05-01T10:00+25:00",
      "2024-05-01T10:00+02:75",
      "20261125T100000Z",
      "2026-W48-3",
      "2026-05-01T",
      "0000-01-01T00:00:00Z",
      "0001-01-01",
      "0999-12-31",
      "9999-12-31T23:00:00-05:00",
      "1000-01-01T00:30:00+01:00",
      "May 1, 2026",
      "",
    ]) {
      assert.equal(parseIsoDate(text), undefined, text);
    }
  });
});
