import { createHash } from "node:crypto";
import { Type } from "@fastify/type-provider-typebox";
import { cityOfZip } from "./address.ts";
import { keyParts } from "./same-home.ts";

/** An automation keeps at most this share of homes out of its mail (and at least 0). */
export const MAX_HOLDOUT_PERCENT = 50;

/** An automation's holdout share, as the operator API and the app API take and show it. */
export const HoldoutPercent = Type.Integer({
  minimum: 0,
  maximum: MAX_HOLDOUT_PERCENT,
  description:
    "The share of homes (0 to 50 %) this automation keeps out of its mail, so Revenue can show what the mail adds; 0 (the default) mails every home.",
});

/**
 * What identifies a home for its holdout group: its street and its city (read from its ZIP when
 * the key has none), else its ZIP. The same home written with or without its ZIP or its state
 * ("2004 PINE RD, SPRINGFIELD IL" and "2004 PINE RD, SPRINGFIELD IL 62704") has one group.
 */
export function holdoutHomeOf(addressKey: string): string {
  const parts = keyParts(addressKey);
  const place = parts.city || cityOfZip(parts.zip) || parts.zip;
  return `${parts.street}|${place}`;
}

/**
 * Where a home falls in [0, 1) for an automation: the first 48 bits of SHA-256 over the
 * automation's id and the home. The same home always lands in the same place (across events,
 * processes and restarts), and different automations split homes independently.
 */
export function holdoutPosition(automationId: string, addressKey: string): number {
  const digest = createHash("sha256")
    .update(`${automationId}\n${holdoutHomeOf(addressKey)}`)
    .digest();
  return digest.readUIntBE(0, 6) / 2 ** 48;
}

/**
 * Whether the automation keeps this home out of its mail. A home held out at one percent stays
 * held out when the percent is raised (its position is below every larger cut).
 */
export function isHeldOut(automationId: string, holdoutPercent: number, addressKey: string): boolean {
  if (holdoutPercent <= 0) return false;
  return holdoutPosition(automationId, addressKey) < holdoutPercent / 100;
}

/** A held-out piece's reason, in words (the Mail screen shows it). */
export const heldOutReason = (holdoutPercent: number) =>
  `not mailed: the home is in the automation's holdout group (${holdoutPercent} % of homes get no card), which measures what the mail adds`;
