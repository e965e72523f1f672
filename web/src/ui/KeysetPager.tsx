import { Button, Group, Text } from "@mantine/core";
import { useState } from "react";

/** Where a keyset-paged list is: the cursor of each page opened after the first, in order. */
export function useKeysetPages() {
  const [cursors, setCursors] = useState<string[]>([]);
  return {
    /** The page shown: undefined for the first (newest) page. */
    cursor: cursors.at(-1),
    /** 1 for the first page. */
    number: cursors.length + 1,
    newer: () => setCursors(cursors.slice(0, -1)),
    older: (next: string) => setCursors([...cursors, next]),
  };
}
export type KeysetPages = ReturnType<typeof useKeysetPages>;

/**
 * Newer and Older under a keyset-paged list, and the page it shows; `next` is the page's next_cursor.
 * Nothing when the list fits one page: "Page 1" alone tells nobody anything.
 */
export function KeysetPager({ pages, next }: { pages: KeysetPages; next: string | null }) {
  if (pages.number === 1 && !next) return null;
  return (
    <Group mt="md">
      {pages.number > 1 && (
        <Button variant="default" onClick={pages.newer}>
          Newer
        </Button>
      )}
      {next && (
        <Button variant="default" onClick={() => pages.older(next)}>
          Older
        </Button>
      )}
      <Text size="sm" c="dimmed">
        Page {pages.number}
      </Text>
    </Group>
  );
}
