import type { SpendFigures } from "../../api/revenue.ts";
import { formatDay } from "../../ui/format.ts";

export type ExperimentFigures = NonNullable<SpendFigures["experiment"]>;

/** Each group needs this many won deals before the app states a result (docs/attribution.md). */
export const CONVERSIONS_FOR_A_RESULT = 10;

const times = (ratio: number) =>
  `${ratio.toLocaleString("en-US", { maximumFractionDigits: 1, minimumFractionDigits: 1 })}×`;

/**
 * The experiment's result in words: "Homes that got the card bought 2.4× as often (95 %: 1.3× to
 * 4.3×)", or undefined ("Too early to tell") while either group has fewer than 10 won deals or
 * the 95 % interval still includes no effect (a lift of 0, the same rate with and without a card).
 */
export function experimentResult(experiment: ExperimentFigures): string | undefined {
  const { lift, lift_ci95_low: low, lift_ci95_high: high } = experiment;
  if (
    experiment.mailed_conversions < CONVERSIONS_FOR_A_RESULT ||
    experiment.holdout_conversions < CONVERSIONS_FOR_A_RESULT ||
    lift === null ||
    low === null ||
    high === null ||
    (low <= 0 && high >= 0)
  ) {
    return undefined;
  }
  return `Homes that got the card bought ${times(1 + lift)} as often (95 %: ${times(1 + low)} to ${times(1 + high)})`;
}

const homes = (count: number, kind = "") => `${count} ${kind}${count === 1 ? "home" : "homes"}`;

const share = (rate: number | null) =>
  rate === null ? "" : ` (${(rate * 100).toLocaleString("en-US", { maximumFractionDigits: 1 })} %)`;

/**
 * How each group did, and which homes that covers: the comparison starts when the automation's
 * holdout was turned on, so cards it mailed before are no part of it (Revenue's table above counts
 * them all): "Since Nov 2, 2026, when this automation began holding homes out: 24 of 40 homes mailed
 * since then bought (60 %); 10 of 40 held-out homes (25 %)." Before there is anything to compare,
 * the words say when the comparison will start rather than "0 of 0 mailed homes".
 */
export function groupsInWords(experiment: ExperimentFigures): string {
  if (experiment.started_at === null) {
    return "No home has been held out yet. The comparison starts with the first home this automation holds out; the cards it mailed before then are not part of it.";
  }
  if (experiment.mailed_homes === 0 && experiment.holdout_homes === 0) {
    return `This automation began holding homes out on ${formatDay(experiment.started_at)}. No home has been mailed or held out since, so there is nothing to compare yet; the cards it mailed before then are not part of it.`;
  }
  const mailed = `${experiment.mailed_conversions} of ${homes(experiment.mailed_homes)} mailed since then bought${share(experiment.mailed_rate)}`;
  const held =
    experiment.holdout_homes === 0
      ? `no home has been held out yet (about ${experiment.holdout_percent} in 100 will be)`
      : `${experiment.holdout_conversions} of ${homes(experiment.holdout_homes, "held-out ")}${share(experiment.holdout_rate)}`;
  return `Since ${formatDay(experiment.started_at)}, when this automation began holding homes out: ${mailed}; ${held}.`;
}
