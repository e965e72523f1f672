import type { SpendFigures } from "../../api/revenue.ts";
import { formatDay } from "../../ui/format.ts";

export type ExperimentFigures = NonNullable<SpendFigures["experiment"]>;

/** Each group needs this many won deals before the app states a result (docs/attribution.md). */
export const CONVERSIONS_FOR_A_RESULT = 10;

const times = (ratio: number) =>
  `${ratio.toLocaleString("en-US", { maximumFractionDigits: 1, minimumFractionDigits: 1 })}×`;

/**
 * The experiment's result in words: "Homes that got the card bought 2.4× as often (most likely
 * between 1.3× and 4.3×)", the range being the 95 % interval, or undefined ("Too early to tell") while either group has fewer than 10 won deals or
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
  return `Homes that got the card bought ${times(1 + lift)} as often (most likely between ${times(1 + low)} and ${times(1 + high)})`;
}

const DAY_MS = 86_400_000;

/**
 * While it is too early to tell: what a result needs, in a contractor's words, and about how long
 * that takes at the pace so far (each group's won deals since the comparison started, the slower
 * group deciding): "…at the pace so far (3 held-out homes bought in 30 days), in about 10 weeks."
 * With no deal yet in a group, or under a week of history, no pace is guessed.
 */
export function untilResultInWords(experiment: ExperimentFigures, now: Date): string {
  const need = `A result shows once the mailed homes and the held-out homes have each bought at least ${CONVERSIONS_FOR_A_RESULT} times, and the difference between them is too large to be chance`;
  if (experiment.started_at === null) return `${need}.`;
  const days = (now.getTime() - Date.parse(experiment.started_at)) / DAY_MS;
  const groups = [
    { bought: experiment.mailed_conversions, who: "mailed homes" },
    { bought: experiment.holdout_conversions, who: "held-out homes" },
  ];
  const short = groups.filter((group) => group.bought < CONVERSIONS_FOR_A_RESULT);
  if (short.length === 0) return `${need}: both have; the difference is not clear yet.`;
  if (days < 7 || short.some((group) => group.bought === 0)) {
    const none = short.find((group) => group.bought === 0);
    return none
      ? `${need}. No ${none.who.replace(/s$/, "")} has bought yet, so how long that takes cannot be told.`
      : `${need}.`;
  }
  const slowest = short
    .map((group) => ({
      ...group,
      daysLeft: ((CONVERSIONS_FOR_A_RESULT - group.bought) * days) / group.bought,
    }))
    .sort((a, b) => b.daysLeft - a.daysLeft)[0]!;
  const weeks = Math.max(1, Math.round(slowest.daysLeft / 7));
  return `${need}: at the pace so far (${slowest.bought} ${slowest.who} bought in ${Math.round(days)} days), in about ${weeks === 1 ? "a week" : `${weeks} weeks`}.`;
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
