/** Types of carry-over-chunks.mjs (a plain script the build runs without compiling). */
export const CARRIED_CHUNK_DAYS: number;
export function carryOverChunks(earlier: string, next: string, now?: number): string[];
