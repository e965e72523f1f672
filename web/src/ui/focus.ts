import { type FormEvent, type RefObject, useEffect, useRef } from "react";

/**
 * True when the keyboard's focus has nowhere to be: the element that had it left the page (a card
 * approved, a button that went with it), so the browser put it on <body> and the next Tab would
 * start again from the top of the page.
 */
export function focusIsLost(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || !active.isConnected;
}

/** Frames a focus move waits at most for the screen to render what it needs (about 1/6 s). */
const FRAMES_TO_WAIT = 10;

const isDisabled = (element: Element | null | undefined) =>
  (element as (Element & { disabled?: boolean }) | null | undefined)?.disabled === true;

/**
 * True when what has the focus is a frame around `element` rather than a control: a dialog's focus
 * trap takes the focus the disabled button let go of onto the dialog itself.
 */
const holdsInstead = (element: HTMLElement | null | undefined) => {
  const active = document.activeElement;
  return element != null && active !== element && active?.contains(element) === true;
};

/**
 * After a busy button (disabled while it spins) is done: the focus goes to `target` where the disabled
 * button held it or the browser let it fall to the page (or a dialog's frame), not where the person
 * put it meanwhile. The query library tells React a moment after the request settles, so `target`
 * (the button itself, often) may still be disabled for a frame or two: the move waits for it.
 */
export function refocusAfterBusy(target: () => HTMLElement | null | undefined, framesLeft = FRAMES_TO_WAIT) {
  requestAnimationFrame(() => {
    const element = target();
    if (isDisabled(element) && framesLeft > 0) return refocusAfterBusy(target, framesLeft - 1);
    if (focusIsLost() || isDisabled(document.activeElement) || holdsInstead(element)) element?.focus();
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
 * Waits for the fields to render their errors (a frame, or a few after a server's refusal).
 */
export function focusFirstInvalid(form: HTMLElement | null, framesLeft = FRAMES_TO_WAIT) {
  requestAnimationFrame(() => {
    const fields = form?.querySelectorAll<HTMLElement>('[aria-invalid="true"]') ?? [];
    const focused = [...fields].some((field) => {
      field.focus();
      return document.activeElement === field;
    });
    if (!focused && framesLeft > 0) focusFirstInvalid(form, framesLeft - 1);
  });
}

/**
 * useForm's `onSubmit` handler for a failed check: the first refused field takes the focus, so
 * whoever pressed the button below it sees why. Forms using it set `noValidate`, so the app's own
 * words show on the field instead of the browser's passing "Please fill out this field".
 */
export const focusFirstRefused = (_errors: unknown, _values: unknown, event?: FormEvent<HTMLFormElement>) =>
  focusFirstInvalid(event?.currentTarget ?? null);

/** focusWhenShown calls still looking for their element, and when the last one began. */
let claimsWaiting = 0;
let lastClaimAt = 0;
/** A claim older than this is not honoured (a hidden tab runs no frames, so its look never ends). */
const CLAIM_MS = 2_500;

/**
 * True while a focusWhenShown begun in the last moments is still looking for its element: a screen
 * that changed meanwhile leaves the focus to it rather than move it first (a screen reader would say both).
 */
export const focusIsClaimed = () => claimsWaiting > 0 && performance.now() - lastClaimAt < CLAIM_MS;

/**
 * Focuses what `find` answers once it is on the screen: after a navigation the next screen (its code,
 * its list) may take a moment, so it is looked for each frame for up to about two seconds.
 */
export function focusWhenShown(find: () => HTMLElement | null | undefined, framesLeft = 120) {
  claimsWaiting += 1;
  lastClaimAt = performance.now();
  const look = (frames: number) =>
    requestAnimationFrame(() => {
      const element = find();
      if (element) element.focus();
      if (element || frames === 0) claimsWaiting -= 1;
      else look(frames - 1);
    });
  look(framesLeft);
}

/**
 * A ref for a busy button (Mantine's `loading` disables it while it spins, and the focus it held
 * falls to the page): once `busy` turns false it gets the focus back, unless the person put it
 * somewhere meanwhile or a failed check gave it to a field (`refocusAfterBusy`).
 */
export function useRefocusAfterBusy<T extends HTMLElement = HTMLButtonElement>(busy: boolean) {
  const button = useRef<T>(null);
  const wasBusy = useRef(busy);
  useEffect(() => {
    if (wasBusy.current && !busy) refocusAfterBusy(() => button.current);
    wasBusy.current = busy;
  }, [busy]);
  return button;
}
