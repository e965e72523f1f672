import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ApiError } from "../../api/errors.ts";
import {
  type AutomationSafety,
  type AutomationSafetyPatch,
  automationSafetyQuery,
  useUpdateAutomationSafety,
} from "../../api/mail-safety.ts";
import { wholeNumberProblem } from "../../ui/number-rules.ts";
import { type CapValue, capPatchOf, capProblem, capValueOf, holdMinutesProblem } from "./cap-fields.tsx";

/** A saved automation's safety settings as the builder edits them (numbers as NumberInput gives them). */
export interface SafetyValues {
  hold_minutes: number | string;
  approval_required: boolean;
  auto_approve_after: number | string;
  cap: CapValue;
}

export type SafetyField = "hold_minutes" | "approval_required" | "auto_approve_after" | "cap";
export type SafetyProblems = Partial<Record<SafetyField, string>>;

export const safetyValuesOf = (safety: AutomationSafety): SafetyValues => ({
  hold_minutes: safety.hold_minutes,
  approval_required: safety.approval_required,
  auto_approve_after: safety.auto_approve_after ?? "",
  cap: capValueOf(safety),
});

/** The server's range for auto-approval (src/app-api/routes/mail-safety.ts); empty: always ask. */
const autoApproveProblem = (cards: number | string) =>
  wholeNumberProblem(cards, { min: 1, max: 100_000, unit: "approved cards", optional: true });

/** What the fields say is wrong, by field; auto-approval only while it shows (approval on). */
export function safetyProblemsOf(values: SafetyValues): SafetyProblems {
  const problems: SafetyProblems = {};
  const hold = holdMinutesProblem(values.hold_minutes);
  if (hold) problems.hold_minutes = hold;
  const autoApprove = values.approval_required ? autoApproveProblem(values.auto_approve_after) : null;
  if (autoApprove) problems.auto_approve_after = autoApprove;
  const cap = capProblem(values.cap);
  if (cap) problems.cap = cap;
  return problems;
}

/**
 * What a save sends: only the settings that differ from `saved`, so a member's save that leaves a
 * setting alone is never refused over it, and a change made elsewhere meanwhile is not written back.
 */
export function safetyPatchOf(values: SafetyValues, saved: AutomationSafety): AutomationSafetyPatch {
  const patch: AutomationSafetyPatch = {};
  if (Number(values.hold_minutes) !== saved.hold_minutes) patch.hold_minutes = Number(values.hold_minutes);
  if (values.approval_required !== saved.approval_required)
    patch.approval_required = values.approval_required;
  // With approval off the field is hidden: a refused number left in it keeps the saved one.
  const autoApprove = autoApproveProblem(values.auto_approve_after)
    ? saved.auto_approve_after
    : values.auto_approve_after === ""
      ? null
      : Number(values.auto_approve_after);
  if (autoApprove !== saved.auto_approve_after) patch.auto_approve_after = autoApprove;
  const cap = capPatchOf(values.cap);
  if (
    cap.monthly_card_cap !== saved.monthly_card_cap ||
    cap.monthly_spend_cap_cents !== saved.monthly_spend_cap_cents
  )
    Object.assign(patch, cap);
  return patch;
}

/** The server names the refused settings; the form has one cap field for both caps. */
function safetyFieldOf(serverField: string): SafetyField | undefined {
  if (serverField === "monthly_card_cap" || serverField === "monthly_spend_cap_cents") return "cap";
  const fields: string[] = ["hold_minutes", "approval_required", "auto_approve_after"];
  return fields.includes(serverField) ? (serverField as SafetyField) : undefined;
}

/**
 * The builder's edit of a saved automation's safety settings, saved by the builder's one Save
 * (`saveChanges`) with the rest of the automation. Its values follow the saved settings as they are
 * read again, unless the contractor has changed them: then the edits stay and are measured against
 * the newest saved settings. `restore` puts back values kept in a draft (drafts.ts), now or, while
 * the saved settings are still being read, as soon as they are.
 */
export function useAutomationSafetyEdit(automationId: string | undefined) {
  const query = useQuery({
    ...automationSafetyQuery(automationId ?? ""),
    enabled: automationId !== undefined,
  });
  const update = useUpdateAutomationSafety(automationId ?? "");
  const [edit, setEdit] = useState<{ basis: AutomationSafety; values: SafetyValues } | null>(null);
  const [restoring, setRestoring] = useState<SafetyValues | null>(null);
  // The server's refusals, by field, until that field changes.
  const [refused, setRefused] = useState<SafetyProblems>({});
  const saved = query.data;
  const differs = (values: SafetyValues, basis: AutomationSafety) =>
    Object.keys(safetyPatchOf(values, basis)).length > 0 || Object.keys(safetyProblemsOf(values)).length > 0;
  if (saved && edit?.basis !== saved) {
    const keepEdits = edit !== null && differs(edit.values, edit.basis);
    setEdit({ basis: saved, values: restoring ?? (keepEdits ? edit.values : safetyValuesOf(saved)) });
    setRestoring(null);
  }
  const values = edit?.values;
  const problems = values ? { ...refused, ...safetyProblemsOf(values) } : {};
  const unsaved = values !== undefined && saved !== undefined && differs(values, saved);

  const change = (changed: Partial<SafetyValues>) => {
    setEdit((current) => current && { ...current, values: { ...current.values, ...changed } });
    setRefused((current) => {
      const left = { ...current };
      for (const field of Object.keys(changed)) delete left[field as SafetyField];
      return left;
    });
  };

  const restore = (kept: SafetyValues) => {
    if (edit) change(kept);
    else setRestoring(kept);
  };

  /**
   * Saves what changed (nothing when nothing did). A refusal naming settings (a member loosening
   * them: 403) lands on their fields before it is thrown on to the caller.
   */
  const saveChanges = async (): Promise<void> => {
    if (!values || !saved || !unsaved) return;
    try {
      const answer = await update.mutateAsync(safetyPatchOf(values, saved));
      setEdit({ basis: answer, values: safetyValuesOf(answer) });
    } catch (error) {
      const onFields: SafetyProblems = {};
      const fields = error instanceof ApiError ? error.fieldErrors() : {};
      for (const [field, message] of Object.entries(fields)) {
        const named = safetyFieldOf(field);
        if (named) onFields[named] = message;
      }
      setRefused(onFields);
      throw error;
    }
  };

  return {
    query,
    saved,
    values,
    change,
    restore,
    problems,
    unsaved,
    saveChanges,
    saving: update.isPending,
  };
}

export type AutomationSafetyEdit = ReturnType<typeof useAutomationSafetyEdit>;
