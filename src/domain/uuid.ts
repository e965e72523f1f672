/**
 * Whether text is a UUID (any version, any case). Ids sent by callers are checked before they
 * reach a `uuid` column: PostgreSQL would answer a malformed one with an error, not "not found".
 */
export const isUuid = (text: string): boolean =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text);
