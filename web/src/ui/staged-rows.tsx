import { type ReactNode, useDeferredValue } from "react";

/** Rows a tall laptop screen shows before scrolling. */
export const ROWS_IN_FIRST_RENDER = 14;

/**
 * A long list's items: its first screenful in the first render, all of them in a deferred render
 * right after it (React does that one in slices between frames). Fifty table rows held a first
 * visit's main thread ~0.3 s on a 2-core machine before any row showed (issue 41). Call it in a
 * component that mounts with the items, so that its first render is the first screenful's.
 */
export function useStagedRows<T>(items: readonly T[], first = ROWS_IN_FIRST_RENDER): readonly T[] {
  const count = useDeferredValue(items.length, first);
  return count >= items.length ? items : items.slice(0, count);
}

/** A table body's rows, staged as useStagedRows stages them; mounts with the items it is given. */
export function StagedRows<T>(props: {
  items: readonly T[];
  children: (item: T, index: number) => ReactNode;
}) {
  return <>{useStagedRows(props.items).map(props.children)}</>;
}
