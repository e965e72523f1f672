import type { SafetyValues } from "../mail-safety/safety-edit.ts";
import { newFollowUp } from "./follow-ups.ts";
import { type AutomationFormValues, newFilterRow } from "./form-model.ts";

/**
 * The builder's unsaved form values, kept in the tab while they differ from the saved automation, so a
 * session that ends mid-edit loses nothing: after signing in again the builder offers them back. One
 * draft per signed-in person, organization and automation (its id, or "new"); the person is in the key
 * and in the record, so another person signing in on the same browser is never offered it. What is kept
 * is what the form holds (names, texts, filters, the sample picked, and a saved automation's safety
 * settings when they were changed), nothing secret. sessionStorage: the
 * tab that was editing gets it back, and it goes with the tab (a shared computer keeps none once closed);
 * a draft older than DRAFT_LIFETIME_MS is never offered and is removed when drafts are next read.
 */
export interface DraftOwner {
  orgId: string;
  userId: string;
  /** The automation's id, or "new" for one not saved yet. */
  automationId: string;
}

export interface KeptDraft {
  /** When the values were last kept (ms since the epoch). */
  savedAt: number;
  values: AutomationFormValues;
  /** The Safety section's values, when they differed from the saved settings. */
  safety?: SafetyValues;
}

export const DRAFT_LIFETIME_MS = 24 * 60 * 60 * 1000;
const PREFIX = "porchlight.automation-draft:";
const VERSION = 1;

const keyOf = (owner: DraftOwner) => `${PREFIX}${owner.orgId}:${owner.userId}:${owner.automationId}`;

/** The tab's storage, or none when the browser refuses it (storage turned off): then nothing is kept. */
function tabStorage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

export function keepDraft(
  owner: DraftOwner,
  values: AutomationFormValues,
  safety?: SafetyValues,
  now = Date.now(),
  storage = tabStorage(),
) {
  try {
    storage?.setItem(
      keyOf(owner),
      JSON.stringify({ version: VERSION, user_id: owner.userId, saved_at: now, values, safety }),
    );
  } catch {
    // Full or refused: the form itself still holds the values.
  }
}

export function dropDraft(owner: DraftOwner, storage = tabStorage()) {
  storage?.removeItem(keyOf(owner));
}

/** The owner's draft when there is one to offer; expired drafts (anyone's) are removed on the way. */
export function readDraft(owner: DraftOwner, now = Date.now(), storage = tabStorage()): KeptDraft | null {
  if (!storage) return null;
  let found: KeptDraft | null = null;
  const keys = Array.from({ length: storage.length }, (_, index) => storage.key(index));
  for (const key of keys.filter((name): name is string => name?.startsWith(PREFIX) ?? false)) {
    const record = parsed(storage.getItem(key));
    if (!record || now - record.savedAt > DRAFT_LIFETIME_MS || record.savedAt > now + 60_000) {
      storage.removeItem(key);
    } else if (key === keyOf(owner) && record.userId === owner.userId) {
      const { userId: _owner, ...kept } = record;
      found = kept;
    }
  }
  return found;
}

function parsed(text: string | null): (KeptDraft & { userId: string }) | null {
  try {
    const record = JSON.parse(text ?? "null");
    if (
      record?.version !== VERSION ||
      typeof record.user_id !== "string" ||
      typeof record.saved_at !== "number" ||
      typeof record.values !== "object" ||
      record.values === null
    )
      return null;
    const kept = { userId: record.user_id, savedAt: record.saved_at, values: record.values };
    const hasSafety = typeof record.safety === "object" && record.safety !== null;
    return hasSafety ? { ...kept, safety: record.safety } : kept;
  } catch {
    return null;
  }
}

/**
 * The form values a draft restores: what it kept over `base` (the form's own values, so a field added
 * to the form since is filled in), with fresh row keys, as rows kept in another page load may carry keys
 * that the form hands out again.
 */
export function restoredValues(base: AutomationFormValues, draft: KeptDraft): AutomationFormValues {
  const values = { ...base, ...draft.values };
  return {
    ...values,
    filters: (values.filters ?? []).map((row) => ({ ...row, key: newFilterRow().key })),
    follow_ups: (values.follow_ups ?? []).map((row) => ({ ...row, key: newFollowUp().key })),
  };
}
