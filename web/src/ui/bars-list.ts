/** A bar's label stays on one line: an empty month's bar has no width, and its name would wrap letter by letter. */
export const BARS_LIST_STYLES = { barLabel: { whiteSpace: "nowrap" } } as const;
