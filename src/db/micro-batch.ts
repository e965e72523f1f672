/**
 * Group commit for hot write paths. Each caller submits one item and awaits its own result; the
 * items that arrive while earlier statements are in flight are written together in the next one.
 * A new batch starts one event-loop turn after its first item (setImmediate), so every request
 * whose bytes were already read joins it: on PGlite, whose queries run synchronously on this
 * thread, nothing would otherwise arrive while a statement is "in flight" and every item would go
 * alone. At low load an item waits only for that turn; under load one statement and one commit
 * serve many requests, which is what lets the service outrun one INSERT per request.
 *
 * `flush` receives the items of one batch and returns one result per item, in order. If it
 * throws, every item of that batch rejects with the error (the caller decides whether to retry
 * items one by one).
 */
export interface MicroBatcher<Item, Result> {
  submit(item: Item): Promise<Result>;
  /** Resolves when every submitted item has settled. */
  drain(): Promise<void>;
}

export interface MicroBatchOptions<Item, Result> {
  flush(items: Item[]): Promise<Result[]>;
  /** Most items in one statement. */
  maxBatch: number;
  /** Most statements in flight at once (each holds one database connection). */
  maxInFlight: number;
}

interface Pending<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

export function createMicroBatcher<Item, Result>(
  options: MicroBatchOptions<Item, Result>,
): MicroBatcher<Item, Result> {
  const queue: Pending<Item, Result>[] = [];
  let inFlight = 0;
  let pumpScheduled = false;
  let idle: (() => void)[] = [];

  function settleIdle() {
    if (inFlight > 0 || queue.length > 0) return;
    const waiters = idle;
    idle = [];
    for (const resolve of waiters) resolve();
  }

  async function run(batch: Pending<Item, Result>[]) {
    try {
      const results = await options.flush(batch.map((pending) => pending.item));
      if (results.length !== batch.length) {
        throw new Error(`batch flush returned ${results.length} results for ${batch.length} items`);
      }
      batch.forEach((pending, index) => {
        pending.resolve(results[index] as Result);
      });
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    } finally {
      inFlight--;
      pump();
      settleIdle();
    }
  }

  function schedulePump() {
    if (pumpScheduled) return;
    pumpScheduled = true;
    setImmediate(() => {
      pumpScheduled = false;
      pump();
    });
  }

  function pump() {
    while (inFlight < options.maxInFlight && queue.length > 0) {
      inFlight++;
      void run(queue.splice(0, options.maxBatch));
    }
  }

  return {
    submit(item) {
      return new Promise<Result>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        schedulePump();
      });
    },
    drain() {
      if (inFlight === 0 && queue.length === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idle.push(resolve));
    },
  };
}
