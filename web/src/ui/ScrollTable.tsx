import { Table } from "@mantine/core";
import type { ReactNode } from "react";
import { shadeAttributes, useHiddenSides } from "./hidden-sides.ts";
import "./scroll-shades.css";
import "./scroll-table.css";

/**
 * A table that scrolls sideways on a narrow screen, and shows that it does: a scrollbar under it
 * whenever columns are out of sight (Mantine's, drawn on a phone too, where the browser's own hides),
 * and a shade at each edge that hides columns. The scrolling region takes keyboard focus and has a
 * name, so it can be scrolled without a mouse (axe: scrollable-region-focusable). At phone width the
 * cells marked `data-row-actions` (a row's buttons) stay pinned at its right edge.
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
  const { viewportRef, hidden, measure } = useHiddenSides();
  return (
    <Table.ScrollContainer
      minWidth={minWidth}
      className="pl-scroll-table pl-scroll-shades"
      {...shadeAttributes(hidden)}
      scrollAreaProps={{
        type: "auto",
        scrollbars: "x",
        offsetScrollbars: "present",
        classNames: { thumb: "pl-scroll-thumb" },
        viewportRef,
        viewportProps: { tabIndex: 0, role: "region", "aria-label": label },
        onScrollPositionChange: measure,
      }}
    >
      {children}
    </Table.ScrollContainer>
  );
}
