import { useMantineTheme } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";

/**
 * True below the `sm` breakpoint (a phone), where `hiddenFrom="sm"` shows. For what the page must hold
 * once, in one place or another by width: a copy hidden by CSS is still in the page, and a search for
 * its text (a test's `.first()`) finds the hidden one.
 */
export function usePhoneWidth(): boolean {
  const { breakpoints } = useMantineTheme();
  return !useMediaQuery(`(min-width: ${breakpoints.sm})`, true, { getInitialValueInEffect: false });
}
