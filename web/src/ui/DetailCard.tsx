import { Paper, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";

/** A titled card on a record's page (a postcard's, a lead's): its proofs, details, answers, deliveries. */
export function DetailCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md" radius="md">
      <Title order={2} size="h4" mb="sm">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

/** One labelled line in a detail card ("Email: …"); a long unbroken value wraps rather than widen the page. */
export function DetailField({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Text size="sm" style={{ overflowWrap: "anywhere" }}>
      <b>{label}:</b> {children}
    </Text>
  );
}
