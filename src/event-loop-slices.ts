/**
 * Synchronous work over a batch (parsing a thousand addresses) holds the event loop: other
 * requests, and Redis's and the database's replies, wait until it gives way. `giveWay()` between
 * two items yields once the current slice has run `sliceMs`, so the loop is never held much longer
 * than that plus one item, whatever an item costs (a count of items per slice could not promise
 * this: hostile addresses cost a hundred times an ordinary one).
 */
export const SLICE_MS = 8;

export function createLoopSlicer(sliceMs = SLICE_MS): { giveWay: () => Promise<void> } {
  let sliceStarted = performance.now();
  return {
    async giveWay() {
      if (performance.now() - sliceStarted < sliceMs) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStarted = performance.now();
    },
  };
}
