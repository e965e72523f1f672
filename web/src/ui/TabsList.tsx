import { ScrollArea, Tabs, type TabsListProps } from "@mantine/core";
import { useEffect } from "react";
import { shadeAttributes, useHiddenSides } from "./hidden-sides.ts";
import "./scroll-shades.css";

/**
 * A tab list that stays on one line and shows, on a phone, that it holds more tabs than fit: it
 * scrolls sideways inside a ScrollArea with a scrollbar under it and a shade at each edge that hides
 * tabs (the same cues as ScrollTable), instead of ending at the screen's edge with nothing to say more
 * tabs follow. The selected tab is brought to the middle of the list whenever it changes (a tap, the
 * arrow keys, a link to `?tab=`) and again whenever the list's width changes (a phone turned), and so
 * is a tab that takes the focus (Home, End), so neither is left under a shade. The theme draws each tab's focus ring inside it, where the scroller does
 * not cut it. `mb` spaces the whole box, scrollbar included.
 */
export function TabsList({ value, mb, ...props }: Omit<TabsListProps, "style"> & { value: string }) {
  const { viewport, viewportRef, hidden, measure } = useHiddenSides();
  useEffect(() => {
    if (!viewport) return;
    const center = (tab: HTMLElement | null) => {
      if (!tab || viewport.scrollWidth <= viewport.clientWidth) return;
      const box = viewport.getBoundingClientRect();
      const place = tab.getBoundingClientRect();
      // The browser keeps the scroll within its range: the first and last tabs go to the edges.
      viewport.scrollLeft += place.left - box.left - (box.width - place.width) / 2;
    };
    const revealSelected = () => center(viewport.querySelector<HTMLElement>("[role=tab][data-active]"));
    // Home and End move the focus without selecting: the focused tab comes out from under a shade too.
    const revealFocused = (event: FocusEvent) =>
      event.target instanceof HTMLElement &&
      event.target.getAttribute("role") === "tab" &&
      center(event.target);
    if (value !== "") revealSelected();
    const resized = new ResizeObserver(revealSelected);
    resized.observe(viewport);
    viewport.addEventListener("focusin", revealFocused);
    return () => {
      resized.disconnect();
      viewport.removeEventListener("focusin", revealFocused);
    };
  }, [viewport, value]);
  return (
    <ScrollArea
      type="auto"
      scrollbars="x"
      offsetScrollbars="present"
      scrollbarSize={8}
      className="pl-scroll-shades"
      classNames={{ thumb: "pl-scroll-thumb" }}
      {...shadeAttributes(hidden)}
      viewportRef={viewportRef}
      onScrollPositionChange={measure}
      mb={mb}
    >
      {/* As wide as its tabs, so the line under them runs under every one, not the first screen's. */}
      <Tabs.List {...props} style={{ flexWrap: "nowrap", width: "max-content", minWidth: "100%" }} />
    </ScrollArea>
  );
}
