import type { ScenarioResult } from "./scenario.ts";

const cell = (value: number | string | undefined) => (value === undefined ? "" : String(value));

/** A Markdown table, one line per result row, ready to paste into the README. */
export function formatTable(results: ScenarioResult[]): string {
  const lines = [
    "| scenario | db | measurement | req/s | p50 ms | p99 ms | errors | non-2xx | peak RSS MiB | ratio | note |",
    "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const result of results) {
    for (const row of result.rows) {
      const ratio = row.ratio === undefined ? "" : `${row.ratio} × (${row.baseline})`;
      lines.push(
        `| ${result.scenario} | ${result.database} | ${row.name} | ${cell(row.reqPerSec)} | ${cell(row.p50Ms)} | ${cell(row.p99Ms)} | ${cell(row.errors)} | ${cell(row.non2xx)} | ${cell(row.peakRssMb)} | ${ratio} | ${cell(row.note)} |`,
      );
    }
  }
  return lines.join("\n");
}
