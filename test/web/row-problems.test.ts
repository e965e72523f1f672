import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rowProblemInWords } from "../../web/src/modules/customers/row-problems.ts";

describe("a refused CSV row's reason, in words", () => {
  it("names the field as the column choices do, never by its code name", () => {
    assert.equal(rowProblemInWords("address: is empty"), "The address is empty.");
    assert.equal(
      rowProblemInWords("notes: longer than 500 characters"),
      "The note is longer than 500 characters.",
    );
    assert.equal(
      rowProblemInWords("completed_at: must be an ISO-8601 date (YYYY-MM-DD) or date-time"),
      "The job date is not a date: write it as 5/31/2024 or 2024-05-31.",
    );
    assert.equal(
      rowProblemInWords("customer_name: must NOT have more than 200 characters"),
      "The customer name is longer than 200 characters.",
    );
  });

  it("keeps a check's own sentence, without the field's code name", () => {
    assert.equal(
      rowProblemInWords("address: give the house number and street, and the city or ZIP"),
      "Give the house number and street, and the city or ZIP",
    );
    assert.equal(rowProblemInWords("The file has no rows."), "The file has no rows.");
  });
});
