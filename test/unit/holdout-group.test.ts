import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { normalizeAddress } from "../../src/domain/address.ts";
import { holdoutHomeOf, holdoutPosition, isHeldOut } from "../../src/domain/holdout-group.ts";

const AUTOMATION = "6f1c1f0e-8d1b-4c7e-9a55-2b8f3f0c1d22";
const homes = (count: number) =>
  Array.from({ length: count }, (_, index) => normalizeAddress(`${index + 1} Oak St, Springfield, IL 62704`));

describe("a home's holdout group", () => {
  it("is the same for the same home written with or without its ZIP, city or state", () => {
    const writings = [
      "2004 Pine Rd, Springfield, IL 62704",
      "2004 Pine Road, Springfield, IL",
      "2004 Pine Rd, IL 62704",
      "2004 PINE RD, SPRINGFIELD 62704",
    ].map(normalizeAddress);
    const places = new Set(writings.map((key) => holdoutHomeOf(key)));
    assert.equal(places.size, 1, [...places].join(" / "));
    const positions = new Set(writings.map((key) => holdoutPosition(AUTOMATION, key)));
    assert.equal(positions.size, 1);
  });

  it("is decided by the automation and the home alone, so it is the same on every call", () => {
    const key = normalizeAddress("17 Elm St, Springfield, IL 62704");
    const first = holdoutPosition(AUTOMATION, key);
    for (let i = 0; i < 5; i++) assert.equal(holdoutPosition(AUTOMATION, key), first);
    assert.ok(first >= 0 && first < 1);
  });

  it("holds out close to the percent of many homes, and none at 0 %", () => {
    const keys = homes(20_000);
    for (const percent of [5, 10, 25, 50]) {
      const share = keys.filter((key) => isHeldOut(AUTOMATION, percent, key)).length / keys.length;
      // Binomial: 20 000 homes put 4 standard deviations within about ±1.4 points at 50 %.
      assert.ok(Math.abs(share - percent / 100) < 0.015, `${share} held out at ${percent} %`);
    }
    assert.equal(keys.filter((key) => isHeldOut(AUTOMATION, 0, key)).length, 0);
  });

  it("keeps every held-out home held out when the percent is raised", () => {
    const keys = homes(2_000);
    const atTen = keys.filter((key) => isHeldOut(AUTOMATION, 10, key));
    assert.ok(atTen.every((key) => isHeldOut(AUTOMATION, 20, key)));
  });

  it("splits homes independently for another automation", () => {
    const keys = homes(4_000);
    const other = randomUUID();
    const both = keys.filter((key) => isHeldOut(AUTOMATION, 50, key) && isHeldOut(other, 50, key)).length;
    assert.ok(Math.abs(both / keys.length - 0.25) < 0.03, `${both} of ${keys.length} held out by both`);
  });
});
