import { Container, Text, Title } from "@mantine/core";
import { DocumentTitle } from "../ui/document-title.tsx";
import { AnchorLink } from "../ui/links.tsx";

export function NotFoundPage() {
  return (
    <Container size="sm" py="xl" component="main">
      <DocumentTitle screen="Page not found" />
      <Title order={1}>Page not found</Title>
      <Text mt="sm">
        This address does not lead anywhere in the app. <AnchorLink to="/">Go to the overview</AnchorLink>.
      </Text>
    </Container>
  );
}
