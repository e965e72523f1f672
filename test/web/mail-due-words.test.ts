import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mailedOrDueWords, sequenceCardDue } from "../../web/src/pages/Mail/follow-up-due.ts";
import { formatDateTime, formatDay } from "../../web/src/ui/format.ts";

const DUE = "2026-12-19T15:00:00Z";
const MAILED = "2026-12-05T15:00:00Z";
const scheduled = { status: "scheduled", mailed_at: null, scheduled_for: DUE };

describe("a card's Mailed words in Mail's list and on its page", () => {
  test("a scheduled follow-up's day is firm once its first card went to print, or when it is not known", () => {
    for (const first of ["submitted", "mailed", "delivered", undefined]) {
      assert.equal(mailedOrDueWords(scheduled, first), `Not yet, due ${formatDay(DUE)}`, String(first));
    }
  });

  test("is an estimate while the first card waits (approval, hold, cap, queue)", () => {
    for (const first of ["awaiting_approval", "held", "capped", "queued"]) {
      assert.equal(mailedOrDueWords(scheduled, first), `Not yet, due about ${formatDay(DUE)}`, first);
    }
  });

  test("a card not scheduled says when it was mailed, or a dash", () => {
    assert.equal(
      mailedOrDueWords({ status: "mailed", mailed_at: MAILED, scheduled_for: null }, "mailed"),
      formatDateTime(MAILED),
    );
    assert.equal(
      mailedOrDueWords({ status: "awaiting_approval", mailed_at: null, scheduled_for: null }, undefined),
      "—",
    );
  });

  test("a sequence's list of cards says Due about while the first card waits", () => {
    assert.equal(sequenceCardDue(DUE, "awaiting_approval"), `Due about ${formatDay(DUE)}`);
    assert.equal(sequenceCardDue(DUE, "mailed"), `Due ${formatDay(DUE)}`);
  });
});
