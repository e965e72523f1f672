/**
 * The lift of a mailed group over a holdout group, and its 95 % confidence interval by the Katz
 * log method for a ratio of two proportions (the risk ratio RR; lift = RR − 1):
 *
 *   RR = (a / n1) / (c / n2)
 *   SE(ln RR) = sqrt(1/a − 1/n1 + 1/c − 1/n2)
 *   95 % CI = exp(ln RR ± z · SE), z = 1.959963984540054 (the normal's 97.5th percentile)
 *
 * D. Katz, J. Baptista, S. P. Azen and M. C. Pike, "Obtaining confidence intervals for the risk
 * ratio in cohort studies", Biometrics 34 (1978) 469-474 (their method C).
 */

/** The normal distribution's 97.5th percentile: a two-sided 95 % interval. */
const Z_95 = 1.959963984540054;

export interface GroupCount {
  /** Homes in the group. */
  homes: number;
  /** Homes of the group with a won deal in the window. */
  conversions: number;
}

export interface RiskRatio {
  ratio: number;
  low: number;
  high: number;
}

/**
 * The ratio of the two groups' conversion rates with its 95 % interval; undefined when it is not
 * defined: a group without homes, no conversion in the holdout group (the ratio is infinite), or
 * none in the mailed group (its logarithm is; the ratio is 0 but has no interval).
 */
export function riskRatio(mailed: GroupCount, holdout: GroupCount): RiskRatio | undefined {
  const { homes: n1, conversions: a } = mailed;
  const { homes: n2, conversions: c } = holdout;
  if (n1 <= 0 || n2 <= 0 || a <= 0 || c <= 0 || a > n1 || c > n2) return undefined;
  const ratio = a / n1 / (c / n2);
  const standardError = Math.sqrt(1 / a - 1 / n1 + 1 / c - 1 / n2);
  const logRatio = Math.log(ratio);
  return {
    ratio,
    low: Math.exp(logRatio - Z_95 * standardError),
    high: Math.exp(logRatio + Z_95 * standardError),
  };
}
