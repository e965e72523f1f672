import "@mantine/charts/styles.css";
import { BarsList, type BarsListProps } from "@mantine/charts";

/**
 * Mantine's BarsList as the app draws figures: compact bars with black text (a light bar's own
 * shade failed contrast), a label kept on one line (an empty bar has no width, and its name would
 * wrap letter by letter).
 */
export function FigureBars(props: BarsListProps) {
  return (
    <BarsList
      barHeight={22}
      barGap={4}
      barTextColor="black"
      styles={{ barLabel: { whiteSpace: "nowrap" } }}
      {...props}
    />
  );
}
