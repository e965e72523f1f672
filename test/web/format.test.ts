import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { utcMinute } from "../../src/mail-safety/words.ts";
import {
  chartMonth,
  distance,
  feetFromMeters,
  formatCalendarDay,
  formatDateTime,
  formatDay,
  formatMonth,
  formatRecent,
  metersFromFeet,
  money,
  readableReason,
  returnOnSpend,
  roughMoney,
  telHref,
} from "../../web/src/ui/format.ts";

describe("the web app's reasons read their moments like every other date of the app", () => {
  test("the server's UTC minute in a held card's reason is written as formatDateTime writes it", () => {
    const until = new Date("2026-11-27T01:28:00Z");
    const reason = `held for the automation's 2-hour hold window, until ${utcMinute(until)}; it can be cancelled until then`;
    assert.match(reason, /UTC/, "the server's words (mail-safety/words.ts) as the app receives them");
    assert.equal(
      readableReason(reason),
      `held for the automation's 2-hour hold window, until ${formatDateTime(until.toISOString())}; it can be cancelled until then`,
    );
  });

  test("a raw ISO timestamp is formatted too; other text and days are left as they are", () => {
    assert.equal(
      readableReason("scheduled for 2026-03-05T14:00:00.000Z"),
      `scheduled for ${formatDateTime("2026-03-05T14:00:00.000Z")}`,
    );
    const capped = "the monthly cap of 250 cards is reached; it resets on Dec 1, 2026";
    assert.equal(readableReason(capped), capped);
  });
});

describe("the web app writes every date in one style", () => {
  // The reader's locale; these tests run in en-US, as the browser tests' Chromium does.
  const noon = new Date(2026, 11, 1, 11, 52, 7);

  test("a moment is its day and minute, a day is month, day and year, never 12/1/2026", () => {
    assert.equal(formatDateTime(noon.toISOString()), "Dec 1, 2026, 11:52 AM");
    assert.equal(formatDay(noon.toISOString()), "Dec 1, 2026");
    assert.equal(formatDateTime(null), "—");
    assert.equal(formatDay(null), "—");
  });

  test("a date without a time is that day wherever the reader is; a month reads as its name", () => {
    assert.equal(formatCalendarDay("2026-12-01"), "Dec 1, 2026");
    assert.equal(formatCalendarDay(null), "—");
    assert.equal(formatCalendarDay("sometime"), "sometime", "what is not a date is shown as it came");
    assert.equal(formatMonth("2026-12"), "Dec 2026");
    assert.equal(formatMonth("2026-12-01", "long"), "December 2026");
  });

  test("a recent moment is its time today and its day and time before", () => {
    assert.equal(formatRecent(noon, new Date(2026, 11, 1, 18)), "11:52 AM");
    assert.equal(formatRecent(noon, new Date(2026, 11, 3)), "Dec 1, 11:52 AM");
  });
});

describe("the web app writes figures as a US contractor reads them", () => {
  test("return on spend is dollars back per dollar, never a bare ratio", () => {
    assert.equal(returnOnSpend(7191.01), "$7,191 back per $1");
    assert.equal(returnOnSpend(833.33), "$833 back per $1");
    assert.equal(returnOnSpend(2.5), "$2.50 back per $1");
    assert.equal(returnOnSpend(0), "$0.00 back per $1");
    assert.equal(returnOnSpend(null), "—");
  });

  test("a won deal's amount keeps its cents, and a whole amount shows none; totals too", () => {
    assert.equal(money(9200.5), "$9,200.50");
    assert.equal(money(0.99), "$0.99");
    assert.equal(money(4250), "$4,250");
    assert.equal(money(null), "—");
    // A total agrees to the cent with the deals it adds up; float dust is no cents.
    assert.equal(money(27650.5), "$27,650.50");
    assert.equal(money(0.1 + 0.2 + 13450.7), "$13,451");
    assert.equal(roughMoney(9200.5), "$9,201", "an estimate is whole dollars");
  });

  test("distances the API keeps in meters show in feet, and in miles from a mile on", () => {
    assert.equal(distance(300), "984 ft");
    assert.equal(distance(400), "1,312 ft");
    assert.equal(distance(5000), "3.1 mi");
    assert.equal(feetFromMeters(400), 1312);
    // Feet typed in the builder go back to the same whole meters they came from.
    for (const meters of [10, 300, 400, 1609, 5000])
      assert.equal(metersFromFeet(feetFromMeters(meters)), meters);
  });

  test("chart months are month names, with the year on the first bar and each January", () => {
    const months = ["2025-12", "2026-01", "2026-02"];
    assert.deepEqual(
      months.map((month, index) => chartMonth(month, index)),
      ["Dec 2025", "Jan 2026", "Feb"],
    );
    assert.equal(chartMonth("2026-06-01", 3), "Jun", "a YYYY-MM-DD month too");
  });

  test("a lead's phone becomes a tel: link of its digits", () => {
    assert.equal(telHref("(217) 555-0123"), "tel:2175550123");
    assert.equal(telHref(" +1 217 555 0199"), "tel:+12175550199");
  });
});
