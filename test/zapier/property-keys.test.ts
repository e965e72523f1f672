/**
 * The Zapier package repeats the developer API's reserved property keys (Zapier runs its folder
 * alone, without the server): this holds the two lists together, so a key added to the API is
 * passed through as itself, never renamed into a custom field.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { RESERVED_PROPERTY_KEYS } from "../../src/trigger/envelope.ts";

const require = createRequire(import.meta.url);
const { propertyKeyOf } = require("../../packages/zapier/lib/properties.js") as {
  propertyKeyOf(key: string): string | undefined;
};

test("every reserved key of the developer API passes through the Zapier package as itself", () => {
  for (const key of RESERVED_PROPERTY_KEYS) assert.equal(propertyKeyOf(key), key);
});

test("any other key a Zap maps becomes a custom field the API accepts", () => {
  assert.equal(propertyKeyOf("Roof Type"), "cf_roof_type");
  assert.equal(propertyKeyOf("cf_gutter_feet"), "cf_gutter_feet");
  assert.equal(propertyKeyOf("Zip Code"), "cf_zip_code");
  assert.equal(propertyKeyOf("  ***  "), undefined);
});
