import { Table } from "@mantine/core";
import type { ReactNode } from "react";
import "./scroll-table.css";

/**
 * A table that scrolls sideways on a narrow screen. The scrolling region takes keyboard focus and has a
 * name, so it can be scrolled without a mouse (axe: scrollable-region-focusable). It is positioned so
 * that visually hidden cells (absolutely positioned) stay inside it instead of widening the page. At
 * phone width the cells marked `data-row-actions` (a row's buttons) stay pinned at its right edge.
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
      className="pl-scroll-table"
    >
      {children}
    </Table.ScrollContainer>
  );
}
