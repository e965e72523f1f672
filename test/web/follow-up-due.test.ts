import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { followUpDue } from "../../web/src/pages/Mail/follow-up-due.ts";
import { formatDateTime, formatDay } from "../../web/src/ui/format.ts";

const DUE = "2026-12-16T15:00:00Z";

describe("a scheduled follow-up's due day on its page", () => {
  test("is firm once the first card went to print", () => {
    for (const status of ["submitted", "mailed"]) {
      assert.equal(followUpDue(DUE, { status, label: "Mailed" }), `, due ${formatDateTime(DUE)}`, status);
    }
    assert.equal(followUpDue(DUE, undefined), `, due ${formatDateTime(DUE)}`);
  });

  test("is an estimate, said so with why, while the first card waits", () => {
    assert.equal(
      followUpDue(DUE, { status: "awaiting_approval", label: "Awaiting approval" }),
      `, due about ${formatDay(DUE)}: its days count from when the first card goes to print, and the first card is awaiting approval`,
    );
    assert.match(followUpDue(DUE, { status: "held", label: "On hold" }), /and the first card is on hold$/);
  });
});
