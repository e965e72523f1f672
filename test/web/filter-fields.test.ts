import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { blankAutomation, validateAutomation } from "../../web/src/modules/automations/form-model.ts";

describe("the builder refuses a filter that would filter out every event", () => {
  const withFilter = (op: "eq" | "neq" | "contains" | "exists", value: string) => ({
    ...blankAutomation("job.completed"),
    name: "Filtered",
    filters: [{ key: "f1", property: "status", op, value }],
  });

  test("'is', 'is not' and 'contains' with no value are refused on the value, in words", () => {
    for (const op of ["eq", "neq", "contains"] as const) {
      assert.equal(
        validateAutomation(withFilter(op, "  "))["filters.0.value"],
        'Enter the value to compare with (or choose "is missing")',
        op,
      );
    }
  });

  test("a value, or an op that takes none, passes", () => {
    assert.equal(validateAutomation(withFilter("eq", "completed"))["filters.0.value"], undefined);
    assert.equal(validateAutomation(withFilter("exists", ""))["filters.0.value"], undefined);
  });
});
