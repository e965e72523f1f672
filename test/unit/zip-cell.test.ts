import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AppError } from "../../src/errors.ts";
import { zipOfRow } from "../../src/imports/zip-cell.ts";

const refusal = (cell: string, row: { state: string; city: string }) => {
  try {
    zipOfRow(cell, row);
  } catch (error) {
    assert.ok(error instanceof AppError);
    return error.detail;
  }
  assert.fail(`${cell} was taken`);
};

describe("a CSV upload's ZIP cell", () => {
  it("is taken as written when it is a ZIP or a ZIP+4, or empty", () => {
    for (const cell of ["", "02134", "62704", "02134-1234", "021341234"]) {
      assert.deepEqual(zipOfRow(cell, { state: "MA", city: "Boston" }), { zip: cell, restored: false }, cell);
    }
  });

  it("gets back the leading zeros a spreadsheet dropped when the ZIP is then one of the row's state", () => {
    const cases: [string, { state: string; city: string }, string][] = [
      ["2134", { state: "MA", city: "Boston" }, "02134"],
      ["2134", { state: "ma", city: "" }, "02134"],
      ["2134", { state: "Massachusetts", city: "" }, "02134"],
      ["7102", { state: "NJ", city: "Newark" }, "07102"],
      ["501", { state: "NY", city: "Holtsville" }, "00501"],
      ["601", { state: "PR", city: "Adjuntas" }, "00601"],
      ["2134-1234", { state: "MA", city: "" }, "02134-1234"],
      ["21341234", { state: "MA", city: "" }, "02134-1234"],
      // No state: the town's state stands in for it.
      ["2139", { state: "", city: "Cambridge" }, "02139"],
      ["2134", { state: "", city: "Boston" }, "02134"],
    ];
    for (const [cell, row, zip] of cases) {
      assert.deepEqual(zipOfRow(cell, row), { zip, restored: true }, `${cell} ${JSON.stringify(row)}`);
    }
  });

  it("refuses, in words, a short ZIP of another state or town, or of no place, or with nothing to check it by", () => {
    assert.equal(
      refusal("2134", { state: "IL", city: "Springfield" }),
      'zip: ZIP "2134" is not in IL: read with its leading 0 put back, it is 02134, in Allston, MA. Write the row\'s 5-digit ZIP.',
    );
    assert.equal(
      refusal("2134", { state: "", city: "Springfield, IL" }),
      'zip: ZIP "2134" does not match the town Springfield, IL: read with its leading 0 put back, it is 02134, in Allston, MA. Write the row\'s 5-digit ZIP.',
    );
    assert.equal(
      refusal("999", { state: "MA", city: "" }),
      'zip: ZIP "999" does not exist, nor does 00999 (with its leading 00 put back). Write the row\'s 5-digit ZIP.',
    );
    assert.equal(
      refusal("2134", { state: "", city: "" }),
      'zip: ZIP "2134" is missing its leading 0, and the row names no state or town to check it by. Write the ZIP with its 0 (02134, Allston, MA), or choose the column that holds the state.',
    );
  });

  it("refuses anything else that is no ZIP, saying how to write one", () => {
    for (const cell of ["MA 02134", "2134.0", "12", "123456", "02134-12", "Boston", "0213４"]) {
      assert.equal(
        refusal(cell, { state: "MA", city: "Boston" }),
        `zip: ZIP "${cell}" is not a ZIP code. Write its 5 digits (like 02134) or its ZIP+4 (like 02134-1234).`,
        cell,
      );
    }
    assert.match(
      refusal("x".repeat(80), { state: "MA", city: "" }) ?? "",
      /^zip: ZIP "x{30}…" is not a ZIP code/,
    );
  });
});
