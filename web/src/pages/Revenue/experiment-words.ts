import type { SpendFigures } from "../../api/revenue.ts";

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

const share = (rate: number | null) =>
  rate === null ? "" : ` (${(rate * 100).toLocaleString("en-US", { maximumFractionDigits: 1 })} %)`;

/**
 * How each group did so far, counted from the automation's first held-out home (cards mailed before
 * it are no part of the comparison, so the words say so): "Since the first held-out home: 24 of 40
 * mailed homes bought (60 %); 10 of 40 held-out homes (25 %)."
 */
export const groupsInWords = (experiment: ExperimentFigures) =>
  "Since the first held-out home: " +
  `${experiment.mailed_conversions} of ${experiment.mailed_homes} mailed homes bought${share(experiment.mailed_rate)}; ` +
  `${experiment.holdout_conversions} of ${experiment.holdout_homes} held-out homes${share(experiment.holdout_rate)}.`;
