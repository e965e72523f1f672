import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ApiError, errorMessage } from "../../web/src/api/errors.ts";

describe("a refusal named by its field reads as words on that field", () => {
  test("a schema pattern is not shown to the person: the phone refused by its pattern says so in words", () => {
    const error = ApiError.from(422, {
      error: { code: "invalid_request", message: 'phone: must match pattern "^[0-9+().\\- ]*$"' },
    });
    assert.deepEqual(error.fieldErrors(), { phone: "This is not in the form this field takes" });
  });

  test("length refusals keep their sentences", () => {
    const error = ApiError.from(422, {
      error: { code: "invalid_request", message: "name: must NOT have more than 200 characters" },
    });
    assert.deepEqual(error.fieldErrors(), { name: "Use at most 200 characters" });
  });

  test("a follow-up step's field (steps[2].delay_days) is named without its code in the toast, and kept for its field", () => {
    const error = ApiError.from(422, {
      error: { code: "invalid_request", message: "steps[2].delay_days: two follow-up cards on the same day" },
    });
    assert.equal(errorMessage(error), "Two follow-up cards on the same day");
    assert.deepEqual(error.fieldErrors(), { "steps[2].delay_days": "Two follow-up cards on the same day" });
  });
});

describe("a failure that is not the server's answer says whose it is", () => {
  test("fetch's own failure, in each browser's words, blames the connection", () => {
    for (const message of [
      "Failed to fetch",
      "NetworkError when attempting to fetch resource.",
      "Load failed",
    ]) {
      assert.equal(
        errorMessage(new TypeError(message)),
        "The server could not be reached. Check your connection and try again.",
      );
    }
  });

  test("a screen that could not draw what the server sent does not blame the connection", () => {
    // What a contractor saw when the page was newer than the server after a deploy.
    const drawing = new TypeError("Cannot destructure property 'sent_to_print' of 'e' as it is undefined.");
    assert.equal(
      errorMessage(drawing),
      "Something went wrong on this screen. Reload the page; if it happens again, tell Porchlight support.",
    );
  });
});
