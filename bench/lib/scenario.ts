import type { DatabaseKind } from "./databases.ts";
import type { MeasureOptions, RunStats } from "./load.ts";

export interface BenchSettings extends MeasureOptions {
  quick: boolean;
  connections: number;
}

export interface ScenarioContext {
  kind: DatabaseKind;
  /** The PostgreSQL server (DATABASE_URL) when kind is postgres. */
  serverUrl: string | undefined;
  settings: BenchSettings;
  log(line: string): void;
}

/** One line of the results table. */
export interface ResultRow {
  name: string;
  reqPerSec?: number;
  p50Ms?: number;
  p99Ms?: number;
  errors?: number;
  non2xx?: number;
  peakRssMb?: number;
  /** Service req/s divided by the named baseline's. */
  ratio?: number;
  baseline?: string;
  /** Anything else measured (durations, sizes), as a short phrase. */
  note?: string;
  runs?: RunStats[];
  statusCounts?: Record<string, number>;
}

export interface ScenarioResult {
  scenario: string;
  database: DatabaseKind;
  target: string;
  rows: ResultRow[];
  facts?: Record<string, unknown>;
}

export interface Scenario {
  name: string;
  target: string;
  run(context: ScenarioContext): Promise<ScenarioResult>;
}

export function rowFromRun(
  name: string,
  run: RunStats,
  peakRssMb: number | undefined,
  extra: Partial<ResultRow> = {},
): ResultRow {
  return {
    name,
    reqPerSec: run.reqPerSec,
    p50Ms: run.p50Ms,
    p99Ms: run.p99Ms,
    errors: run.errors,
    non2xx: run.non2xx,
    peakRssMb,
    statusCounts: run.statusCounts,
    ...extra,
  };
}

export const ratio = (value: number | undefined, base: number | undefined) =>
  value && base ? Math.round((value / base) * 100) / 100 : undefined;
