import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import { readCsvTable } from "../../src/imports/csv-table.ts";

const HEADER = "address,city,state,zip,job_date,customer";
const ROWS = [1, 2, 3, 4, 5].map((n) => `${n}2 Elm St,Springfield,IL,62701,2024-05-0${n},Person ${n}`);

const read = (text: string) => readCsvTable(Readable.from([Buffer.from(text)]), { maxRecords: 500 });

describe("CSV uploads count data rows only", () => {
  it("a file with a header and 5 rows reads 5 rows, whatever blank-looking line ends it", async () => {
    const endings: [string, string][] = [
      ["a trailing newline", "\n"],
      ["a blank line", "\n\n"],
      ["a blank line, CRLF", "\r\n\r\n"],
      ["a line of spaces", "\n   \n"],
      ["a line of empty cells", "\r\n,,,,,\r\n"],
      ["a quoted space", '\n" "\n'],
      ["a DOS end-of-file mark (Ctrl-Z)", "\r\n\u001a"],
      ["a zero-width space", "\n\u200b\n"],
      ["a no-break space and a tab in empty cells", "\n\u00a0,\t,,,,\n"],
    ];
    for (const [what, ending] of endings) {
      const newline = ending.includes("\r") ? "\r\n" : "\n";
      const table = await read(`${[HEADER, ...ROWS].join(newline)}${ending}`);
      assert.equal(table.records.length, 5, what);
      assert.equal(table.records.at(-1)?.line, 6, `${what}: the last row is line 6`);
    }
  });

  it("a row with one visible cell among invisible ones is a row", async () => {
    const table = await read(`${HEADER}\n${ROWS[0]}\n\u200b,,,,,Ned\n`);
    assert.equal(table.records.length, 2);
    assert.deepEqual(table.records[1], { line: 3, cells: ["\u200b", "", "", "", "", "Ned"] });
  });

  it("a blank-looking line between rows is skipped, and the rows keep their lines in the file", async () => {
    const table = await read(`${HEADER}\n${ROWS[0]}\n" "\n${ROWS[1]}\n`);
    assert.deepEqual(
      table.records.map((record) => record.line),
      [2, 4],
    );
  });
});
