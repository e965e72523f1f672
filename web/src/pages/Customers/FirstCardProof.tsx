import { Image, Paper, SimpleGrid, Text, Title } from "@mantine/core";
import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactivationProof } from "../../api/customers.ts";
import { useProofFrame } from "../../ui/PhoneProof.tsx";
import { LoadError } from "../../ui/states.tsx";

/**
 * The New mailing's proof of its first card. Shown beside the form, and on a phone in the Preview card
 * sheet too (`ui/PhoneProof.tsx`): both read the one query the page holds, and each has its own heading id.
 */
export function FirstCardProof({
  proof,
  canMail,
  address,
}: {
  proof: UseQueryResult<ReactivationProof>;
  /** Whether any home is left to mail with the filter. */
  canMail: boolean;
  /** The first card's home. */
  address: string | undefined;
}) {
  const { headingId, frame } = useProofFrame();
  return (
    <Paper withBorder p="md" {...frame}>
      <Title order={2} size="h4" id={headingId} mb="xs">
        Proof of the first card
      </Title>
      {!canMail ? (
        <Text size="sm" c="dimmed">
          No home to mail with this filter.
        </Text>
      ) : proof.isError ? (
        <LoadError error={proof.error} title="The proof could not be drawn" retry={() => proof.refetch()} />
      ) : proof.data ? (
        <SimpleGrid cols={1} spacing="sm">
          <Text size="sm">To {address}</Text>
          <Image src={proof.data.front_png} alt="First card, front" radius="sm" fit="contain" />
          <Image src={proof.data.back_png} alt="First card, back" radius="sm" fit="contain" />
        </SimpleGrid>
      ) : (
        <Text size="sm" role="status">
          Drawing the proof…
        </Text>
      )}
    </Paper>
  );
}
