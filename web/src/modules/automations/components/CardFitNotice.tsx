import { Alert, List, Text } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useQuery } from "@tanstack/react-query";
import { type CardFitInput, cardFitQuery } from "../../../api/automations.ts";
import { organizationQuery } from "../../../api/organization.ts";
import { blankTemplate } from "./LiveProof.tsx";

const FIELD_LABEL: Record<"headline" | "message" | "offer", string> = {
  headline: "Headline",
  message: "Message",
  offer: "Offer",
};

/**
 * Whether the card's text fits its card, checked by the server's own rule (the one a save
 * applies) shortly after typing stops: text that does not fit is refused on save, never cut; a
 * record's longer value prints shortened instead (docs/card-design.md).
 */
export function CardFitNotice({ input }: { input: CardFitInput }) {
  const [debounced] = useDebouncedValue(JSON.stringify(input), 300);
  const checked = JSON.parse(debounced) as CardFitInput;
  // An empty headline or message is refused, not measured; the field itself says to write it.
  const blank = blankTemplate(checked.template);
  const fit = useQuery({ ...cardFitQuery(checked), enabled: !blank, placeholderData: (p) => p });
  const organization = useQuery(organizationQuery());
  const size = input.template.card_size ?? "4x6";
  // An automation without an offer of its own prints the business profile's: say so, or the room
  // that offer takes from the message is a mystery (it is in no field of this form).
  const settingsOffer = !input.template.offer?.trim() && Boolean(organization.data?.offer?.trim());
  // Text a save refuses for another reason is refused here too; the proof beside it says why.
  if (blank || fit.isError || !fit.data) return null;
  if (fit.data.fits) {
    return (
      <Text size="sm" c="teal.9" role="status" aria-live="polite">
        The text fits the {size} card, merge fields counted at their longest. A longer name or address prints
        shortened to whole words, never your text.
      </Text>
    );
  }
  return (
    <Alert color="red" title="The text does not fit the card" role="status" aria-live="polite">
      <List size="sm">
        {fit.data.overflow.map((field) => (
          <List.Item key={field.field}>
            {field.field === "offer" && settingsOffer ? "Offer (from Settings)" : FIELD_LABEL[field.field]}:{" "}
            {field.fitting} of its {field.characters} characters fit the {size} card (merge fields counted at
            their longest).
          </List.Item>
        ))}
      </List>
      <Text size="sm" mt="xs">
        Shorten it or choose a bigger card: a card is never printed cut short.
        {settingsOffer &&
          " Your offer from Settings (Business profile) prints under the message and takes its room: a shorter offer there, or one of this automation's own, leaves more."}
      </Text>
    </Alert>
  );
}
