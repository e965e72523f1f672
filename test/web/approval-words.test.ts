import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { approvalCostWords, approvalWhenWords } from "../../web/src/modules/mail-safety/approval-words.ts";

describe("what Approve selected's dialog says before cards go to print", () => {
  test("how many cards print and what they cost at the cost per card; without one, where to set it", () => {
    assert.equal(approvalCostWords(3, 85), ", for about $2.55 ($0.85 a card).");
    assert.equal(approvalCostWords(1, 85), ", for about $0.85.");
    assert.equal(approvalCostWords(120, 133), ", for about $159.60 ($1.33 a card).");
    assert.equal(approvalCostWords(2, 0), ", for about $0.00 ($0.00 a card).");
    assert.equal(approvalCostWords(3, null), ". Set your cost per card in Settings to see what they cost.");
    assert.equal(approvalCostWords(1, null), ". Set your cost per card in Settings to see what it costs.");
  });

  test("when they print: at once, or, for those a monthly cap holds, when the cap opens", () => {
    assert.equal(approvalWhenWords(3, 0), "They go to print at once: printed mail cannot be taken back.");
    assert.equal(approvalWhenWords(1, 0), "It goes to print at once: printed mail cannot be taken back.");
    assert.equal(
      approvalWhenWords(2, 2, "Jan 1"),
      "They wait because a monthly cap is reached: they go out on Jan 1, or as soon as an owner raises the cap.",
    );
    assert.equal(
      approvalWhenWords(1, 1, "Jan 1"),
      "It waits because a monthly cap is reached: it goes out on Jan 1, or as soon as an owner raises the cap.",
    );
    assert.equal(
      approvalWhenWords(3, 1, "Jan 1"),
      "2 go to print at once (printed mail cannot be taken back); 1 card waits because a monthly cap is reached: it goes out on Jan 1, or as soon as an owner raises the cap.",
    );
    assert.equal(
      approvalWhenWords(3, 2, "Jan 1"),
      "1 goes to print at once (printed mail cannot be taken back); 2 cards wait because a monthly cap is reached: they go out on Jan 1, or as soon as an owner raises the cap.",
    );
  });
});
