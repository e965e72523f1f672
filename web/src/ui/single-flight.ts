import { useRef } from "react";

/**
 * An action that ignores calls while its previous run is under way (they resolve to undefined): a
 * double-click on Save saves once. A button's `loading` or `disabled` state comes a render too late
 * for the second click of a double-click, or a key pressed twice.
 */
export function useSingleFlight<Args extends unknown[], Result>(
  run: (...args: Args) => Promise<Result>,
): ((...args: Args) => Promise<Result | undefined>) & { isRunning: () => boolean } {
  const running = useRef(false);
  const once = async (...args: Args) => {
    if (running.current) return undefined;
    running.current = true;
    try {
      return await run(...args);
    } finally {
      running.current = false;
    }
  };
  // Known at once, where a mutation's isPending comes a render later: a dialog asked to close by
  // the second click of a double-click (landing beside a form that just got shorter) stays open.
  return Object.assign(once, { isRunning: () => running.current });
}
