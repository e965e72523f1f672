import { useRef } from "react";

/**
 * An action that ignores calls while its previous run is under way: a double-click on Save saves once.
 * A button's `loading` state comes a render too late for the second click of a double-click.
 */
export function useSingleFlight(run: () => Promise<void>): () => Promise<void> {
  const running = useRef(false);
  return async () => {
    if (running.current) return;
    running.current = true;
    try {
      await run();
    } finally {
      running.current = false;
    }
  };
}
