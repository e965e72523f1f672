import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { eventTypeDescription } from "../../web/src/modules/automations/event-type-words.ts";

describe("the builder's Event type words", () => {
  const usual = "What your CRM sent, newest first. You may type a type not seen yet.";

  test("a type the CRM sent, nothing typed, or nothing received yet: the usual words", () => {
    assert.equal(eventTypeDescription("job.completed", ["job.completed"]), usual);
    assert.equal(eventTypeDescription(" ", ["job.completed"]), usual);
    assert.equal(eventTypeDescription("job.completed", []), usual, "before the CRM sent anything");
  });

  test("a type the CRM has not sent while it sends others is said, with what it sends", () => {
    assert.equal(
      eventTypeDescription("job.complete", ["job.completed", "deal.won"]),
      'Your CRM has not sent a "job.complete" event yet, so this automation mails nothing until one arrives. It has sent: job.completed, deal.won.',
    );
    assert.match(eventTypeDescription("x", ["a", "b", "c", "d"]), /It has sent: a, b, c, …\.$/);
  });
});
