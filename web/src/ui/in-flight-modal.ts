import type { ModalProps } from "@mantine/core";
import { type MouseEvent, useCallback, useLayoutEffect, useRef } from "react";

/**
 * A Mantine Modal whose request is in flight (a confirm, or a form that creates something shown only
 * once: an API key, a signing secret, an invitation link). While `pending` nothing closes it: no
 * Escape, no click outside, no close button (which keeps the theme's name); closed, the person would
 * not know whether it was done, or would never see what was made. A click outside does not take the
 * focus out of it, and when the button that had the focus is disabled (it spins), the dialog itself
 * takes the focus rather than <body>. The dialog's own cancel button is the caller's to disable.
 *
 * Once made, what is shown once (`showingOnce`) is put away by a button, never by a stray click
 * beside the dialog: the second click of a double-click on its submit button lands there once the
 * shorter result has replaced the form.
 *
 * Spread `modalProps` on the Modal and put `ref` on an element inside it; `dialog()` finds the dialog.
 */
export function useInFlightModal(pending: boolean, { showingOnce = false }: { showingOnce?: boolean } = {}) {
  const ref = useRef<HTMLDivElement>(null);
  const dialog = useCallback(() => ref.current?.closest<HTMLElement>('[role="dialog"]') ?? null, []);
  useLayoutEffect(() => {
    if (!pending) return;
    const active = document.activeElement;
    const held = dialog();
    if (held && (!active || !held.contains(active) || active.matches(":disabled"))) held.focus();
  }, [pending, dialog]);
  const modalProps = {
    closeOnEscape: !pending,
    closeOnClickOutside: !pending && !showingOnce,
    closeButtonProps: { "aria-label": "Close", disabled: pending },
    overlayProps: {
      onMouseDown: (event: MouseEvent) => {
        if (pending) event.preventDefault();
      },
    },
  } satisfies Partial<ModalProps>;
  return { modalProps, ref, dialog };
}
