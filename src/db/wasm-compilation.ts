import { setFlagsFromString } from "node:v8";

/**
 * The embedded database is a large WebAssembly module. V8 compiles it fast first and re-compiles
 * the functions that get hot in the background; on a busy core that re-compilation stalled every
 * request for 20-80 ms at moments during the first minutes of load (events at 70 % of capacity:
 * p99 12-27 ms, 6-8.5 ms without it). Compiling with the optimizing tier from the start costs
 * about 1.2 s at start-up instead. Call before the module is compiled (before PGlite starts), in a
 * long-running process only: the tests open many short-lived databases and would pay it each time.
 * Only when PGlite runs on the event loop (PGLITE_THREAD=off): on its own thread a re-compiled
 * function stalls that thread, never the requests, and the start keeps the 1.2 s.
 */
export function compileWasmWithOptimizingTier(): void {
  setFlagsFromString("--no-wasm-dynamic-tiering");
}
