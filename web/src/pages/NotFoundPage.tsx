import { Container, Text, Title } from "@mantine/core";
import { AnchorLink } from "../ui/links.tsx";

export function NotFoundPage() {
  return (
    <Container size="sm" py="xl" component="main">
      <Title order={1}>Page not found</Title>
      <Text mt="sm">
        This address does not lead anywhere in the app. <AnchorLink to="/">Go to the overview</AnchorLink>.
      </Text>
    </Container>
  );
}
