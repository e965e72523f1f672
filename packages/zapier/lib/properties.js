// @ts-check
/**
 * An event's record properties from a Zap's fields. The developer API takes only its reserved
 * keys and `cf_…` custom fields (lowercase letters, digits, underscores): any other key a Zap
 * maps ("Roof Type") becomes a custom field (`cf_roof_type`) rather than a 422. The reserved keys
 * repeat the server's (src/trigger/envelope.ts): Zapier runs this folder alone, without the server.
 */
const RESERVED = new Set([
  "street",
  "city",
  "state",
  "zip",
  "client_name",
  "client_email",
  "client_phone",
  "amount",
  "status",
  "service_lead_id",
]);

/** Longest key the API takes. */
const MAX_KEY = 64;

/**
 * "Roof Type" → "cf_roof_type"; a reserved key or a `cf_` key as it is; undefined when nothing
 * of the key is left.
 * @param {string} key
 */
function propertyKeyOf(key) {
  const words = key
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "_")
    .replace(/_+/g, "_")
    .replace(/^_|_$/g, "");
  if (!words) return undefined;
  if (RESERVED.has(words) || /^cf_[a-z0-9_]/.test(words)) return words.slice(0, MAX_KEY);
  return `cf_${words}`.slice(0, MAX_KEY);
}

/**
 * The named fields, then the other properties; a blank value is left out, any value sent as a
 * string (the API refuses numbers and booleans rather than coerce them).
 * @param {Record<string, unknown>} named
 * @param {Record<string, unknown> | undefined} others
 */
function recordProperties(named, others) {
  /** @type {Record<string, string>} */
  const properties = {};
  for (const [rawKey, value] of Object.entries(others ?? {})) {
    const key = propertyKeyOf(rawKey);
    if (key && value !== undefined && value !== null && String(value) !== "") properties[key] = String(value);
  }
  for (const [key, value] of Object.entries(named)) {
    if (value !== undefined && value !== null && String(value) !== "") properties[key] = String(value);
  }
  return properties;
}

module.exports = { propertyKeyOf, recordProperties };
