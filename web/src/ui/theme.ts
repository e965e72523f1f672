import {
  Alert,
  Anchor,
  Badge,
  type CSSVariablesResolver,
  createTheme,
  Drawer,
  Modal,
  NavLink,
  Notification,
  Tabs,
} from "@mantine/core";
import "./nav-link.css";

/**
 * Palettes whose light variant's words (shade 9) fall below 4.5:1 on its background (shade 1):
 * teal 4.3, green 3.8, orange 3.6, lime 3.3, yellow 2.7; red is 4.5, blue 4.9.
 */
const LIGHT_BELOW_AA = new Set(["teal", "green", "orange", "lime", "yellow"]);

/**
 * The one theme. Shades are chosen for WCAG AA contrast: white text on primary shade 8, and the
 * "dimmed" secondary text one shade darker than Mantine's default (gray 6 on white is 3.3:1).
 */
export const theme = createTheme({
  primaryColor: "indigo",
  primaryShade: { light: 8, dark: 5 },
  defaultRadius: "md",
  fontFamily: "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif",
  headings: { fontWeight: "650" },
  components: {
    // A link inside text must not be told apart by colour alone (WCAG 1.4.1).
    Anchor: Anchor.extend({ defaultProps: { underline: "always" } }),
    // A badge never cuts its words ("AWAITING APPROV…"): in a narrow cell it wraps to a second line.
    Badge: Badge.extend({
      styles: {
        root: { height: "auto", minHeight: "var(--badge-height)", maxWidth: "100%" },
        label: { whiteSpace: "normal", overflow: "visible", textAlign: "center", lineHeight: 1.25 },
      },
    }),
    // Light alerts color their title; on the light background that falls below 4.5:1 for orange and yellow.
    Alert: Alert.extend({ styles: { title: { color: "var(--mantine-color-text)" } } }),
    // The close button is an icon: it needs a name for screen readers. The title bar is a <header>,
    // which axe counts as a second banner landmark in the page: it is only the dialog's title row.
    Modal: Modal.extend({
      defaultProps: {
        closeButtonProps: { "aria-label": "Close" },
        attributes: { header: { role: "none" } },
      },
    }),
    // A drawer is a modal from an edge: the same name for its close button, the same title row.
    Drawer: Drawer.extend({
      defaultProps: {
        closeButtonProps: { "aria-label": "Close" },
        attributes: { header: { role: "none" } },
      },
    }),
    // Toasts too; and their message is grey 6 by default (3.3:1), so it takes the dimmed shade.
    Notification: Notification.extend({
      defaultProps: { closeButtonProps: { "aria-label": "Close notification" } },
      styles: { description: { color: "var(--mantine-color-dimmed)" } },
    }),
    // The active item's hover shade lowered its text to 4.12:1 (nav-link.css keeps it at AA).
    NavLink: NavLink.extend({ classNames: { root: "app-nav-link" } }),
    // Tab lists scroll sideways on a phone (ui/TabsList.tsx): a ring drawn outside the tab would be cut.
    Tabs: Tabs.extend({ styles: { tab: { outlineOffset: "-2px" } } }),
  },
});

export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    "--mantine-color-dimmed": "var(--mantine-color-gray-7)",
    // Placeholders drawn as elements (FileInput, Select) are text to axe: gray 5 is 2.1:1.
    "--mantine-color-placeholder": "var(--mantine-color-gray-7)",
    // Field errors are red 6 by default (3.3:1 on white); red 9 reads at 5.4:1.
    "--mantine-color-error": "var(--mantine-color-red-9)",
    // Orange words on their light background read at 3.6:1 ("OPTED OUT"): like a light alert's title,
    // every light badge, button or icon of these palettes writes in the text colour on its tint.
    ...Object.fromEntries(
      [...LIGHT_BELOW_AA].map((palette) => [
        `--mantine-color-${palette}-light-color`,
        "var(--mantine-color-text)",
      ]),
    ),
  },
  dark: {},
});

/** A nonce the server may print into index.html for the app's style elements (strict CSP). */
export function styleNonce(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? "";
}

/** The app header's height in px: toasts stand clear of it (ui/toasts.css). */
export const HEADER_HEIGHT = 56;
