import { useCallback, useEffect, useState } from "react";

export interface HiddenSides {
  left: boolean;
  right: boolean;
}

/**
 * Which sides of a sideways scroller (a ScrollArea's viewport) hide content, kept up to date as it
 * scrolls and as it or its content changes size (a phone turned, rows loaded). `viewportRef` goes on
 * the scroller, `measure` on its scroll event; `viewport` is the scroller once mounted.
 */
export function useHiddenSides() {
  const [viewport, setViewport] = useState<HTMLDivElement | null>(null);
  const [hidden, setHidden] = useState<HiddenSides>({ left: false, right: false });
  const measure = useCallback(() => {
    if (!viewport) return;
    const left = viewport.scrollLeft > 1;
    const right = viewport.scrollLeft + viewport.clientWidth < viewport.scrollWidth - 1;
    setHidden((current) => (current.left === left && current.right === right ? current : { left, right }));
  }, [viewport]);
  // No measure() here: reading scroll sizes in an effect forces a layout of the whole page in the
  // middle of rendering it (~40 ms on Mail's first visit). A ResizeObserver reports each element once
  // as it starts observing, after the browser's own layout, where reading them costs nothing.
  useEffect(() => {
    if (!viewport) return;
    const resized = new ResizeObserver(measure);
    resized.observe(viewport);
    if (viewport.firstElementChild) resized.observe(viewport.firstElementChild);
    return () => resized.disconnect();
  }, [viewport, measure]);
  return { viewport, viewportRef: setViewport, hidden, measure };
}

/** The attributes that turn on a scroller's edge shades (scroll-shades.css), on its frame. */
export function shadeAttributes(hidden: HiddenSides) {
  return {
    "data-hidden-left": hidden.left || undefined,
    "data-hidden-right": hidden.right || undefined,
  };
}
