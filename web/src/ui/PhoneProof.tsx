import { Box, Button, Drawer } from "@mantine/core";
import {
  createContext,
  type ReactNode,
  type RefObject,
  useContext,
  useEffect,
  useId,
  useRef,
  useState,
} from "react";
import "./phone-proof.css";

const InPreviewSheet = createContext(false);

/**
 * The props of a proof's frame: a named region on the page, a plain box in the preview sheet (a
 * dialog named "Card preview" of its own), where a second region of the same name as the page's
 * proof under the form would make two landmarks no one could tell apart (axe: landmark-unique).
 */
export function useProofFrame(): {
  headingId: string;
  frame: { component: "section" | "div"; "aria-labelledby"?: string };
} {
  const headingId = useId();
  const inSheet = useContext(InPreviewSheet);
  return {
    headingId,
    frame: inSheet ? { component: "div" } : { component: "section", "aria-labelledby": headingId },
  };
}

/**
 * Below the `md` breakpoint a page's proof column falls under the whole form, out of sight of the
 * field being edited (the automation builder, a New mailing). There a "Preview card" button stands in a
 * bar along the bottom of the screen (phone-proof.css: opaque, the page scrolls under it as under the
 * header, so no label is left half covered by a floating button) and opens the same proof
 * (`children`) in a sheet from the bottom;
 * closing it puts the contractor back on the field (focus returns to the button, the page keeps its
 * scroll). From `md` up nothing shows: the proof stands beside the form. CSS decides (`hiddenFrom`), so
 * no width is measured and nothing re-renders on a resize. The proof under the form stays for whoever
 * scrolls to the end; a proof that reads a query reads the same one in both places.
 *
 * The bar steps aside (hidden, out of reach of a tap and of a screen reader) while the field being
 * typed into reaches under it: a field at the bottom of the screen, where the browser also puts the
 * field it scrolls above an on-screen keyboard. It comes back once that field is left or scrolled up.
 */
export function PhoneProof({ children }: { children: ReactNode }) {
  const [opened, setOpened] = useState(false);
  const bar = useRef<HTMLDivElement>(null);
  const covers = useCoversFocusedField(bar);
  return (
    <>
      {/* Room at the end of the page, so the bar never covers the form's last line for good. */}
      <Box hiddenFrom="md" className="phone-proof-room" aria-hidden />
      {/* Hidden as a whole when it steps aside: the bar would take the taps too. */}
      <Box
        ref={bar}
        hiddenFrom="md"
        className="phone-proof-bar"
        style={covers ? { visibility: "hidden" } : undefined}
      >
        <Button onClick={() => setOpened(true)} radius="xl">
          Preview card
        </Button>
      </Box>
      {/* As tall as the proof (the screen at most, then it scrolls), over the form's upper part. */}
      <Drawer
        opened={opened}
        onClose={() => setOpened(false)}
        position="bottom"
        title="Card preview"
        styles={{ content: { height: "auto" } }}
      >
        <InPreviewSheet.Provider value={true}>{children}</InPreviewSheet.Provider>
      </Drawer>
    </>
  );
}

/** Input types nobody types text into: the bar may stand over these. */
const NOT_TYPED = new Set([
  "button",
  "checkbox",
  "color",
  "file",
  "hidden",
  "image",
  "radio",
  "range",
  "reset",
  "submit",
]);

/** The box of the field that has the focus, when text is typed into it (its whole input box, sections included). */
function typedIntoBox(element: Element | null): DOMRect | null {
  const typed =
    element instanceof HTMLTextAreaElement ||
    (element instanceof HTMLInputElement && !NOT_TYPED.has(element.type)) ||
    (element instanceof HTMLElement && element.isContentEditable);
  if (!typed) return null;
  return (element.closest(".mantine-Input-wrapper") ?? element).getBoundingClientRect();
}

/** Space kept between the field and the bar. */
const CLEARANCE = 8;

/**
 * Whether the element at `ref` lies over (or within CLEARANCE px of) the field being typed into, looked at
 * again whenever the focus moves, the page or a scroller scrolls, the window or the visual viewport (an
 * on-screen keyboard) changes size, or the field grows as it is typed into. Both boxes are in the layout
 * viewport, where the bar is fixed: a bar under an open keyboard that steps aside costs nothing.
 */
function useCoversFocusedField(ref: RefObject<HTMLElement | null>): boolean {
  const [covers, setCovers] = useState(false);
  useEffect(() => {
    let frame = 0;
    const look = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        const field = typedIntoBox(document.activeElement);
        const own = ref.current?.getBoundingClientRect();
        setCovers(
          Boolean(
            field &&
              own &&
              own.width > 0 &&
              own.left < field.right + CLEARANCE &&
              own.right > field.left - CLEARANCE &&
              own.top < field.bottom + CLEARANCE &&
              own.bottom > field.top - CLEARANCE,
          ),
        );
      });
    };
    const options = { capture: true, passive: true };
    const events = ["focusin", "focusout", "scroll", "input"] as const;
    for (const event of events) document.addEventListener(event, look, options);
    window.addEventListener("resize", look, options);
    window.visualViewport?.addEventListener("resize", look, options);
    window.visualViewport?.addEventListener("scroll", look, options);
    return () => {
      cancelAnimationFrame(frame);
      for (const event of events) document.removeEventListener(event, look, options);
      window.removeEventListener("resize", look, options);
      window.visualViewport?.removeEventListener("resize", look, options);
      window.visualViewport?.removeEventListener("scroll", look, options);
    };
  }, [ref]);
  return covers;
}
