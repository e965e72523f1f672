import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMicroBatcher } from "../../src/db/micro-batch.ts";

/** A flush whose statements the test finishes by hand, recording each batch it was given. */
function controlledFlush() {
  const batches: number[][] = [];
  const finishers: (() => void)[] = [];
  const flush = (items: number[]) =>
    new Promise<number[]>((resolve, reject) => {
      batches.push(items);
      finishers.push(() =>
        items.includes(-1) ? reject(new Error("bad item")) : resolve(items.map((n) => n * 10)),
      );
    });
  const finishNext = async () => {
    finishers.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { batches, flush, finishNext };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("micro-batch (group commit)", () => {
  it("sends a lone item alone, one event-loop turn after it was submitted", async () => {
    const { batches, flush, finishNext } = controlledFlush();
    const batcher = createMicroBatcher({ flush, maxBatch: 10, maxInFlight: 1 });
    const result = batcher.submit(1);
    assert.deepEqual(batches, [], "the batch waits for the requests already read in this turn");
    await nextTurn();
    assert.deepEqual(batches, [[1]], "no waiting for company beyond that turn");
    await finishNext();
    assert.equal(await result, 10);
  });

  it("gathers the items of one turn into one batch, up to maxBatch, even when nothing is in flight", async () => {
    const { batches, flush, finishNext } = controlledFlush();
    const batcher = createMicroBatcher({ flush, maxBatch: 3, maxInFlight: 1 });
    const results = [1, 2, 3, 4, 5].map((n) => batcher.submit(n));
    await nextTurn();
    assert.deepEqual(batches, [[1, 2, 3]]);
    results.push(batcher.submit(6));
    await finishNext();
    assert.deepEqual(
      batches,
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
      "what arrived while in flight goes next",
    );
    await finishNext();
    assert.deepEqual(await Promise.all(results), [10, 20, 30, 40, 50, 60]);
    await batcher.drain();
  });

  it("keeps up to maxInFlight statements running", async () => {
    const { batches, flush, finishNext } = controlledFlush();
    const batcher = createMicroBatcher({ flush, maxBatch: 2, maxInFlight: 2 });
    const results = [1, 2, 3, 4, 5, 6].map((n) => batcher.submit(n));
    await nextTurn();
    assert.deepEqual(batches, [
      [1, 2],
      [3, 4],
    ]);
    await finishNext();
    assert.deepEqual(batches, [
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    await finishNext();
    await finishNext();
    assert.deepEqual(await Promise.all(results), [10, 20, 30, 40, 50, 60]);
  });

  it("rejects only the items of a failed batch, and drains", async () => {
    const { flush, finishNext } = controlledFlush();
    const batcher = createMicroBatcher({ flush, maxBatch: 10, maxInFlight: 1 });
    const first = batcher.submit(1);
    await nextTurn();
    const failing = [batcher.submit(-1), batcher.submit(2)].map((result) =>
      result.then(
        () => "resolved",
        (error: Error) => error.message,
      ),
    );
    const drained = batcher.drain();
    await finishNext();
    await finishNext();
    assert.equal(await first, 10);
    assert.deepEqual(await Promise.all(failing), ["bad item", "bad item"]);
    await drained;
  });

  it("refuses a flush that answers the wrong number of results", async () => {
    const batcher = createMicroBatcher<number, number>({
      flush: async () => [],
      maxBatch: 10,
      maxInFlight: 1,
    });
    await assert.rejects(batcher.submit(1), /0 results for 1 items/);
  });
});
