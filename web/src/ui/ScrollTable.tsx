import { Table } from "@mantine/core";
import { type ReactNode, useCallback, useEffect, useState } from "react";
import "./scroll-table.css";

interface HiddenSides {
  left: boolean;
  right: boolean;
}

/**
 * Which sides of a sideways scroller hide columns, kept up to date as it scrolls and as it or its
 * content changes size (a phone turned, rows loaded).
 */
function useHiddenSides() {
  const [viewport, setViewport] = useState<HTMLDivElement | null>(null);
  const [hidden, setHidden] = useState<HiddenSides>({ left: false, right: false });
  const measure = useCallback(() => {
    if (!viewport) return;
    const left = viewport.scrollLeft > 1;
    const right = viewport.scrollLeft + viewport.clientWidth < viewport.scrollWidth - 1;
    setHidden((current) => (current.left === left && current.right === right ? current : { left, right }));
  }, [viewport]);
  useEffect(() => {
    if (!viewport) return;
    measure();
    const resized = new ResizeObserver(measure);
    resized.observe(viewport);
    if (viewport.firstElementChild) resized.observe(viewport.firstElementChild);
    return () => resized.disconnect();
  }, [viewport, measure]);
  return { viewportRef: setViewport, hidden, measure };
}

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
      className="pl-scroll-table"
      data-hidden-left={hidden.left || undefined}
      data-hidden-right={hidden.right || undefined}
      scrollAreaProps={{
        type: "auto",
        scrollbars: "x",
        offsetScrollbars: "present",
        classNames: { thumb: "pl-scroll-table-thumb" },
        viewportRef,
        viewportProps: { tabIndex: 0, role: "region", "aria-label": label },
        onScrollPositionChange: measure,
      }}
    >
      {children}
    </Table.ScrollContainer>
  );
}
