import { Tabs, type TabsListProps } from "@mantine/core";
import { useEffect, useRef } from "react";

/**
 * A tab list that stays on one line: on a phone, where its tabs do not fit, it scrolls sideways
 * (instead of wrapping onto a second line under the first), and the selected tab is scrolled into
 * view, again whenever the list's width changes. The theme draws each tab's focus ring inside it,
 * where the scrolling list does not cut it.
 */
export function TabsList({ value, ...props }: Omit<TabsListProps, "style"> & { value: string }) {
  const list = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = list.current;
    if (!element || value === "") return;
    const reveal = () => {
      const active = element.querySelector<HTMLElement>("[data-active]");
      if (!active) return;
      const box = element.getBoundingClientRect();
      const tab = active.getBoundingClientRect();
      if (tab.left < box.left || tab.right > box.right)
        element.scrollLeft += tab.left - box.left - (box.width - tab.width) / 2;
    };
    reveal();
    // A window turned narrower (a phone rotated, a resized window) can push the selected tab out.
    const resized = new ResizeObserver(reveal);
    resized.observe(element);
    return () => resized.disconnect();
  }, [value]);
  return (
    <Tabs.List
      ref={list}
      {...props}
      style={{ flexWrap: "nowrap", overflowX: "auto", overflowY: "hidden", scrollbarWidth: "thin" }}
    />
  );
}
