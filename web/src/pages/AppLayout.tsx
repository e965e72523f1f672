import { AppShell, Badge, Burger, Button, Group, Text, Title, VisuallyHidden } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { useQuery, useSuspenseQuery } from "@tanstack/react-query";
import { Outlet, useLocation, useNavigate, useRouter } from "@tanstack/react-router";
import { useEffect, useId, useRef } from "react";
import { mailSafetyQuery } from "../api/mail-safety.ts";
import { businessNameOf, organizationQuery } from "../api/organization.ts";
import { sessionQuery, useSignOut } from "../api/session.ts";
import { focusIsClaimed, focusIsLost } from "../ui/focus.ts";
import { NavLinkLink } from "../ui/links.tsx";
import { usePhoneWidth } from "../ui/phone-width.ts";
import { HEADER_HEIGHT } from "../ui/theme.ts";
import "../ui/skip-link.css";

/** The navigation, labels and order as the product names them. */
export const NAVIGATION = [
  { label: "Overview", to: "/" },
  { label: "Automations", to: "/automations" },
  { label: "Mail", to: "/mail" },
  { label: "Approvals", to: "/approvals" },
  { label: "Leads", to: "/leads" },
  { label: "Revenue", to: "/revenue" },
  { label: "Customers", to: "/customers" },
  { label: "Developers", to: "/developers" },
  { label: "Settings", to: "/settings" },
] as const;

export function AppLayout() {
  const [opened, { toggle, close }] = useDisclosure(false);
  const navbarId = useId();
  // Below `sm` (the navbar's breakpoint) AppShell slides the closed navbar off the screen; inert takes
  // it out of the Tab order and the accessibility tree too. On a desktop it always shows.
  const phone = usePhoneWidth();
  const navbarHidden = phone && !opened;
  const burger = useRef<HTMLButtonElement>(null);
  const { data: session } = useSuspenseQuery(sessionQuery());
  // The name Settings edits (and the cards print), so the header and Settings never disagree.
  const { data: organization } = useQuery(organizationQuery());
  const businessName = organization ? businessNameOf(organization) : session.organization.name;
  const pathname = useLocation({ select: (location) => location.pathname });
  const navigate = useNavigate();
  const signOut = useSignOut();
  useFocusOnScreenAfterLink();
  const isActive = (to: string) =>
    to === "/" ? pathname === "/" || pathname === "" : pathname.startsWith(to);

  return (
    <AppShell
      header={{ height: HEADER_HEIGHT }}
      navbar={{ width: 220, breakpoint: "sm", collapsed: { mobile: !opened } }}
      padding={{ base: "sm", sm: "lg" }}
    >
      {/* A link, as skip links are known; focused rather than followed, since a #fragment would go
          through the router's history (and the builder's "Leave without saving?" guard). */}
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is a link by convention; its href works without script. */}
      <a
        href="#main-content"
        className="skip-link"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById("main-content")?.focus();
        }}
      >
        Skip to content
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger
              opened={opened}
              onClick={toggle}
              hiddenFrom="sm"
              size="sm"
              aria-label={opened ? "Close navigation" : "Open navigation"}
              ref={burger}
              aria-expanded={opened}
              aria-controls={navbarId}
            />
            <Title order={2} size="h4">
              Porchlight
            </Title>
            <Text size="sm" c="dimmed" visibleFrom="xs" truncate>
              {businessName}
            </Text>
          </Group>
          <Button
            variant="default"
            size="xs"
            loading={signOut.isPending}
            onClick={async () => {
              await signOut.mutateAsync().catch(() => undefined);
              await navigate({ to: "/sign-in", search: {} });
            }}
          >
            Sign out
          </Button>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar
        p="xs"
        aria-label="Main navigation"
        id={navbarId}
        inert={navbarHidden}
        onKeyDown={(event) => {
          // Escape closes the opened menu on a phone, and the focus goes back to its button.
          if (phone && opened && event.key === "Escape") {
            close();
            burger.current?.focus();
          }
        }}
      >
        {NAVIGATION.map((item) => (
          <NavLinkLink
            key={item.to}
            to={item.to}
            label={item.label}
            active={isActive(item.to)}
            aria-current={isActive(item.to) ? "page" : undefined}
            onClick={(event) => {
              // On a phone the menu closes (and turns inert): the focus goes on to the page just chosen,
              // as the skip link takes it, rather than falling to the top of the document.
              if (phone && event.currentTarget.contains(document.activeElement)) {
                document.getElementById("main-content")?.focus({ preventScroll: true });
              }
              close();
            }}
            rightSection={item.to === "/approvals" ? <AwaitingApprovalBadge /> : undefined}
          />
        ))}
        {/* The business is named here too: a phone's header has no room for it. */}
        <Text size="xs" c="dimmed" mt="auto" p="xs">
          Signed in to <strong>{businessName}</strong> as {session.user.name || session.user.email} (
          {session.role})
        </Text>
      </AppShell.Navbar>
      <AppShell.Main id="main-content" tabIndex={-1}>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}

/**
 * A link inside a screen (a card in Mail's list, a sequence's next card) goes with the screen it
 * led from, and the browser drops the keyboard's focus on <body>: the next Tab would start at the
 * top of the document again and a screen reader would say nothing of the new screen. Once the new
 * screen is in, the focus goes to it (the main region, as the skip link takes it). A focus the person
 * still has (a navigation link, a filter) stays where it is.
 */
function useFocusOnScreenAfterLink() {
  const router = useRouter();
  useEffect(
    () =>
      router.subscribe("onResolved", ({ fromLocation }) => {
        // A page opened by its address keeps the browser's own start (Tab first reaches Skip to content).
        if (!fromLocation) return;
        requestAnimationFrame(() => {
          // A screen's own focus move under way (the new automation's row) is left to finish.
          if (focusIsLost() && !focusIsClaimed()) {
            document.getElementById("main-content")?.focus({ preventScroll: true });
          }
        });
      }),
    [router],
  );
}

/** How many cards wait for approval, beside Approvals in the navigation; nothing when none wait. */
function AwaitingApprovalBadge() {
  // Approving, cancelling and adding customers (which stops their homes' cards) invalidate this
  // query, and every read of the Approvals list sets it; new cards show within a minute.
  const safety = useQuery({ ...mailSafetyQuery(), refetchInterval: 60_000 });
  const waiting = safety.data?.awaiting_approval ?? 0;
  if (waiting === 0) return null;
  return (
    <Badge size="sm" variant="filled" color="red.9" miw={22}>
      {waiting}
      <VisuallyHidden> awaiting approval</VisuallyHidden>
    </Badge>
  );
}
