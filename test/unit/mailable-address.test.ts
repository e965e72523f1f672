import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isMailable, isPrintableAsWritten } from "../../src/domain/address.ts";

describe("the mailable-address rules (src/domain/address.ts)", () => {
  it("mailable: a street and a city or a ZIP", () => {
    assert.equal(isMailable({ street: "12 Oak St", zip: "78701" }), true);
    assert.equal(isMailable({ street: "12 Oak St", city: "Austin" }), true);
    assert.equal(isMailable({ street: "Oak St", city: "Austin" }), true);
    assert.equal(isMailable({ street: "  ", city: "Austin", zip: "78701" }), false);
    assert.equal(isMailable({ street: "12 Oak St", state: "TX" }), false);
  });

  it("printable as written: also a house number, and a state where there is no ZIP", () => {
    assert.equal(isPrintableAsWritten({ street: "12 Oak St", zip: "78701" }), true);
    assert.equal(isPrintableAsWritten({ street: "12 Oak St", city: "Austin", state: "TX" }), true);
    assert.equal(isPrintableAsWritten({ street: "12 Oak St", city: "Austin" }), false);
    assert.equal(
      isPrintableAsWritten({ street: "Oak St", city: "Austin", state: "TX", zip: "78701" }),
      false,
    );
    assert.equal(isPrintableAsWritten({ street: "12 Oak St", state: "TX" }), false);
  });
});
