import { Container, Paper, Stack, Text, Title } from "@mantine/core";
import type { ReactNode } from "react";
import { DocumentTitle } from "../../ui/document-title.tsx";

/** The frame of every page a person sees before they are signed in. */
export function AuthFrame({
  title,
  intro,
  children,
}: {
  title: string;
  intro?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Container size={440} py={48} component="main">
      <DocumentTitle screen={title} />
      <Stack gap="xs" mb="lg">
        <Text fw={700} c="indigo.8">
          Porchlight
        </Text>
        <Title order={1} size="h2">
          {title}
        </Title>
        {intro && <Text c="dimmed">{intro}</Text>}
      </Stack>
      <Paper withBorder p="lg" radius="md">
        {children}
      </Paper>
    </Container>
  );
}
