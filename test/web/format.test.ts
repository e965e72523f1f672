import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { utcMinute } from "../../src/mail-safety/words.ts";
import { formatDate, readableReason } from "../../web/src/ui/format.ts";

describe("the web app's reasons read their moments like every other date of the app", () => {
  test("the server's UTC minute in a held card's reason is written as formatDate writes it", () => {
    const until = new Date("2026-11-27T01:28:00Z");
    const reason = `held for the automation's 2-hour hold window, until ${utcMinute(until)}; it can be cancelled until then`;
    assert.match(reason, /UTC/, "the server's words (mail-safety/words.ts) as the app receives them");
    assert.equal(
      readableReason(reason),
      `held for the automation's 2-hour hold window, until ${formatDate(until.toISOString())}; it can be cancelled until then`,
    );
  });

  test("a raw ISO timestamp is formatted too; other text and days are left as they are", () => {
    assert.equal(
      readableReason("scheduled for 2026-03-05T14:00:00.000Z"),
      `scheduled for ${formatDate("2026-03-05T14:00:00.000Z")}`,
    );
    const capped = "the monthly cap of 250 cards is reached; it resets on Dec 1, 2026";
    assert.equal(readableReason(capped), capped);
  });
});
