/**
 * The record id (and dedup_id) a test card's sample carries (trigger/test-card.ts): no CRM sent it,
 * so the app's reads of event types (reports/app-reads.ts) tell it from a CRM's events.
 */
export const TEST_CARD_RECORD_PREFIX = "test-card-";
