import { Image, Loader, Paper, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { type ProofInput, proofQuery } from "../../../api/automations.ts";
import { LoadError } from "../../../ui/states.tsx";

/** Front and back of the card as the server's renderer draws them, redrawn shortly after typing stops. */
export function LiveProof({ input }: { input: ProofInput }) {
  const [debounced] = useDebouncedValue(input, 600);
  const proof = useQuery({ ...proofQuery(debounced), placeholderData: keepPreviousData });

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="proof-heading">
      <Stack gap="sm">
        <Title order={2} size="h4" id="proof-heading">
          Proof{" "}
          {proof.isFetching && <Loader size="xs" ml="xs" role="status" aria-label="Updating the proof" />}
        </Title>
        <Text size="sm" c="dimmed">
          {input.sample_id
            ? "Drawn with the sample record you picked."
            : "Drawn with example data until a sample is picked."}
        </Text>
        {proof.isError && (
          <LoadError error={proof.error} title="The proof could not be drawn" retry={() => proof.refetch()} />
        )}
        {proof.isPending && !proof.isError ? (
          <Text size="sm" role="status">
            Drawing the proof…
          </Text>
        ) : proof.data ? (
          <SimpleGrid
            cols={1}
            spacing="sm"
            aria-live="polite"
            style={{ opacity: proof.isPlaceholderData ? 0.6 : 1 }}
          >
            <Image src={proof.data.front_png} alt="Postcard proof front" radius="sm" fit="contain" />
            <Image src={proof.data.back_png} alt="Postcard proof back" radius="sm" fit="contain" />
          </SimpleGrid>
        ) : null}
      </Stack>
    </Paper>
  );
}
