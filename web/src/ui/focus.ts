import { type RefObject, useEffect, useRef } from "react";

/**
 * True when the keyboard's focus has nowhere to be: the element that had it left the page (a card
 * approved, a button that went with it), so the browser put it on <body> and the next Tab would
 * start again from the top of the page.
 */
export function focusIsLost(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || !active.isConnected;
}

/**
 * After a busy button (disabled while it spins) is done: a frame later, when the browser has let go
 * of the disabled button's focus (or is about to), the focus goes to `target` unless the person put
 * it somewhere else meanwhile. Checked at once, the button still holds the focus and nothing moves.
 */
export function refocusAfterBusy(target: () => HTMLElement | null | undefined) {
  requestAnimationFrame(() => {
    const active = document.activeElement as (HTMLElement & { disabled?: boolean }) | null;
    if (focusIsLost() || active?.disabled === true) target()?.focus();
  });
}

/**
 * Gives `target` (a heading with tabIndex -1) the focus when what held it goes away: `present`
 * turns from true to false and the focus went with it. Nothing moves when the screen opens without
 * it (`present` starting false or undefined), or when the focus is somewhere the person put it.
 */
export function useFocusWhenGone(target: RefObject<HTMLElement | null>, present: boolean | undefined) {
  const before = useRef(present);
  useEffect(() => {
    if (before.current === true && present === false && focusIsLost()) target.current?.focus();
    before.current = present;
  }, [present, target]);
}

/**
 * After a form's check failed: the focus (and so the window's scroll) goes to the first field that
 * says what is wrong, so a person who pressed a button far below it sees why nothing happened.
 * Waits a frame, for the fields to render their errors.
 */
export function focusFirstInvalid(form: HTMLElement | null) {
  requestAnimationFrame(() => {
    const field = form?.querySelector<HTMLElement>('[aria-invalid="true"]');
    field?.focus();
  });
}
