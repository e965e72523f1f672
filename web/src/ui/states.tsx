import { Alert, Button, Center, Group, Loader, Paper, Stack, Text, Title } from "@mantine/core";
import type { ReactNode, Ref } from "react";
import { ApiError, errorMessage } from "../api/errors.ts";
import { DocumentTitle } from "./document-title.tsx";

/** What every query shows while it loads. */
export function Loading({ label = "Loading" }: { label?: string }) {
  return (
    <Center py="xl" role="status" aria-live="polite">
      <Group gap="sm">
        <Loader size="sm" aria-hidden />
        <Text>{label}…</Text>
      </Group>
    </Center>
  );
}

/** What every query shows when it fails: the server's message and a way to try again. */
export function LoadError({
  error,
  retry,
  title = "This could not be loaded",
}: {
  error: unknown;
  retry?: () => void;
  title?: string;
}) {
  return (
    <Alert color="red" title={title} role="alert">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{errorMessage(error)}</Text>
        {retry && (
          <Button size="xs" variant="default" onClick={retry}>
            Try again
          </Button>
        )}
      </Stack>
    </Alert>
  );
}

/**
 * A page of one record that did not load. A record that does not exist (a mistyped or stale link)
 * gets a heading of its own and the way back, not "Try again"; any other failure is a LoadError.
 */
export function RecordLoadError({
  error,
  retry,
  notFound,
  back,
}: {
  error: unknown;
  retry: () => void;
  /** The heading when there is no such record, e.g. "This postcard was not found". */
  notFound: string;
  back: ReactNode;
}) {
  if (!(error instanceof ApiError && error.status === 404)) return <LoadError error={error} retry={retry} />;
  return (
    <>
      <PageHeader
        title={notFound}
        description="The link may be mistyped or out of date, or it belongs to another organization."
      />
      {back}
    </>
  );
}

/**
 * An empty list says what to do next. Its heading is one level under the page's (an h2) unless it
 * sits in a section of its own: `order={3}` under that section's h2 keeps the headings in order.
 * With `headingRef` the heading can take the focus (tabIndex -1): where it goes when the list's
 * last item leaves (`useFocusWhenGone`).
 */
export function EmptyState({
  title,
  children,
  action,
  order = 2,
  headingRef,
}: {
  title: string;
  children: ReactNode;
  action?: ReactNode;
  order?: 2 | 3;
  headingRef?: Ref<HTMLHeadingElement>;
}) {
  return (
    <Paper withBorder p="lg" radius="md">
      <Stack gap="sm" align="flex-start">
        <Title order={order} size="h4" ref={headingRef} tabIndex={headingRef ? -1 : undefined}>
          {title}
        </Title>
        <Text component="div" size="sm">
          {children}
        </Text>
        {action}
      </Stack>
    </Paper>
  );
}

/**
 * A page's heading and what it is for. With `headingRef` the heading can take the focus (tabIndex
 * -1), for when what had it leaves the page (`useFocusWhenGone`).
 */
export function PageHeader({
  title,
  description,
  actions,
  headingRef,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
  headingRef?: Ref<HTMLHeadingElement>;
}) {
  return (
    <>
      <DocumentTitle screen={title} />
      <Group justify="space-between" align="flex-start" mb="lg" wrap="wrap" gap="sm">
        <Stack gap={4}>
          {/* A title may be a person's text (a lead's name): a long unbroken word wraps, not widen the page. */}
          <Title
            order={1}
            size="h2"
            ref={headingRef}
            tabIndex={headingRef ? -1 : undefined}
            style={{ overflowWrap: "anywhere" }}
          >
            {title}
          </Title>
          {description && <Text c="dimmed">{description}</Text>}
        </Stack>
        {actions}
      </Group>
    </>
  );
}
