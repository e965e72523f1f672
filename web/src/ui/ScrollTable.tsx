import { Table } from "@mantine/core";
import type { ReactNode } from "react";

/**
 * A table that scrolls sideways on a narrow screen. The scrolling region takes keyboard focus and has a
 * name, so it can be scrolled without a mouse (axe: scrollable-region-focusable). It is positioned so
 * that visually hidden cells (absolutely positioned) stay inside it instead of widening the page.
 */
export function ScrollTable({
  label,
  minWidth,
  children,
}: {
  label: string;
  minWidth: number;
  children: ReactNode;
}) {
  return (
    <Table.ScrollContainer
      type="native"
      minWidth={minWidth}
      tabIndex={0}
      role="region"
      aria-label={label}
      pos="relative"
    >
      {children}
    </Table.ScrollContainer>
  );
}
