/**
 * What stops an automation's follow-up cards to a home (issue 42), in the order their reasons are
 * preferred when one answer meets several: the automation keeps its choice (`stop_when`), the
 * pipeline applies it (pieces/follow-ups.ts).
 */
export const STOP_CONDITIONS = ["lead", "won_deal", "opt_out", "customer", "returned"] as const;
export type StopCondition = (typeof STOP_CONDITIONS)[number];

/**
 * What stopped a follow-up (`mail_pieces.stopped_by`): an answer of the home, its first card not
 * being mailed, its step removed from the automation, or the automation turned off.
 */
export type FollowUpStop = StopCondition | "first_card_not_mailed" | "step_removed" | "automation_off";
