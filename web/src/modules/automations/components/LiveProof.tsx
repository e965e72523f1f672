import { AspectRatio, Image, Loader, Paper, SimpleGrid, Skeleton, Stack, Text, Title } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import { type ProofInput, proofQuery } from "../../../api/automations.ts";
import { type ApiError, inWords, isInputRefused } from "../../../api/errors.ts";
import { useProofFrame } from "../../../ui/PhoneProof.tsx";
import { LoadError } from "../../../ui/states.tsx";

/** Width over height of each card size, for the placeholder drawn while the proof loads. */
const CARD_RATIO: Record<NonNullable<ProofInput["template"]["card_size"]>, number> = {
  "4x6": 6 / 4,
  "6x9": 9 / 6,
  "6x11": 11 / 6,
};

/** A refusal of the card's text, without the field's code name ("template.message: …"). */
function refusalInWords(error: ApiError): string {
  const [first] = Object.values(error.fieldErrors());
  return inWords(first ?? error.message.replace(/^[a-z_][\w.]*: /, ""));
}

/** Who the card is drawn for: a proof of another record (or audience) would mislead, not just lag. */
const recipientOf = (input: ProofInput) => JSON.stringify([input.sample_id ?? null, input.audience ?? null]);

/** The sample record a proof is drawn with, and how it came to be the one: said as it is, never "you picked" for the builder's own pick. */
export interface ProofSample {
  /** Where it is, as the Sample record field lists it (its street, else its record id). */
  place: string;
  pickedByYou: boolean;
  /** The newest record of its event type, which the builder picks until another is picked. */
  newest: boolean;
}

const PICK_ANOTHER = "Pick another under Sample record to draw a different home.";

function sampleSentence(sample: ProofSample | undefined): string {
  if (!sample) return "Drawn with a sample record.";
  if (sample.pickedByYou) return `Drawn with the sample record you picked: ${sample.place}.`;
  if (sample.newest) return `Drawn with the newest sample record: ${sample.place}. ${PICK_ANOTHER}`;
  return `Drawn with the sample record ${sample.place}. ${PICK_ANOTHER}`;
}

/**
 * A card without a headline or a message cannot be drawn (the server refuses an empty one): the proof
 * says what to write instead of asking and showing the refusal's field code.
 */
export const blankTemplate = (template: ProofInput["template"]) =>
  !template.headline?.trim() || !template.message?.trim();
/**
 * Front and back of the card as the server's renderer draws them. Typing is redrawn shortly after it
 * stops; a change of the record (or audience) is drawn at once, and until its proof arrives a placeholder
 * shows instead of a card drawn for someone else. `recordKnown` false (the builder still finding its
 * sample) holds the proof back, so example data never shows before the sample's proof.
 */
export function LiveProof({
  input,
  sample,
  recordKnown = true,
  title = "Proof",
  headingOrder = 2,
}: {
  input: ProofInput;
  /** The sample record `input.sample_id` names, as the sentence above the card says it. */
  sample?: ProofSample | undefined;
  recordKnown?: boolean;
  /** The section's heading; a page with several proofs (a sequence's cards) names each. */
  title?: string;
  /** Its level: 3 inside a section headed at 2 (a follow-up card's), so headings go down one at a time. */
  headingOrder?: 2 | 3;
}) {
  const { headingId, frame } = useProofFrame();
  const [template] = useDebouncedValue(JSON.stringify(input.template), 600);
  const drawn: ProofInput = { ...input, template: JSON.parse(template) as ProofInput["template"] };
  const blank = blankTemplate(drawn.template);
  const proof = useQuery({
    ...proofQuery(drawn),
    enabled: recordKnown && !blank,
    // The previous proof stays (dimmed) while typing is redrawn, but not when it shows another record.
    placeholderData: (previous, previousQuery) =>
      previousQuery && recipientOf(previousQuery.queryKey.at(-1) as ProofInput) === recipientOf(drawn)
        ? previous
        : undefined,
  });
  const ratio = CARD_RATIO[input.template.card_size ?? "4x6"];

  return (
    <Paper withBorder p="md" radius="md" {...frame}>
      <Stack gap="sm">
        <Title order={headingOrder} size="h4" id={headingId}>
          {title}{" "}
          {proof.isFetching && proof.data && (
            <Loader size="xs" ml="xs" role="status" aria-label="Updating the proof" />
          )}
        </Title>
        <Text size="sm" c="dimmed">
          {!recordKnown
            ? "Finding the newest sample record to draw the card with."
            : input.sample_id
              ? sampleSentence(sample)
              : "Drawn with example data until a sample is picked."}
        </Text>
        {blank ? (
          <Text size="sm" role="status">
            Write a headline and a message to see the card.
          </Text>
        ) : proof.isError && isInputRefused(proof.error) ? (
          // The text itself is refused (a merge field, a character the card cannot print, too long):
          // trying again draws nothing; the field says what to change.
          <Text size="sm" role="status">
            Change the card's text to see it: {refusalInWords(proof.error)}
          </Text>
        ) : proof.isError ? (
          <LoadError error={proof.error} title="The proof could not be drawn" retry={() => proof.refetch()} />
        ) : proof.data ? (
          <SimpleGrid
            cols={1}
            spacing="sm"
            aria-live="polite"
            style={{ opacity: proof.isPlaceholderData ? 0.6 : 1 }}
          >
            <Image
              src={proof.data.front_png}
              alt={`Postcard proof front: ${proof.data.front_text.join(" ")}`}
              radius="sm"
              fit="contain"
            />
            <Image
              src={proof.data.back_png}
              alt={`Postcard proof back: ${proof.data.back_text.join(" ")}`}
              radius="sm"
              fit="contain"
            />
          </SimpleGrid>
        ) : (
          <Stack gap="sm" role="status" aria-label="Drawing the proof">
            <Text size="sm">Drawing the proof…</Text>
            <AspectRatio ratio={ratio}>
              <Skeleton radius="sm" aria-hidden />
            </AspectRatio>
            <AspectRatio ratio={ratio}>
              <Skeleton radius="sm" aria-hidden />
            </AspectRatio>
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}
