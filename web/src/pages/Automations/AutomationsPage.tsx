import { Badge, Table, Text } from "@mantine/core";
import { useQuery, useSuspenseQuery } from "@tanstack/react-query";
import { automationListQuery } from "../../api/automations.ts";
import { organizationQuery } from "../../api/organization.ts";
import { followUpCount, followUpSummary, holdoutWords } from "../../modules/automations/follow-ups.ts";
import { describeTrigger } from "../../modules/automations/form-model.ts";
import { NeighbourCoverage } from "../../modules/neighbours/NeighbourCoverage.tsx";
import { AnchorLink, ButtonLink } from "../../ui/links.tsx";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { EmptyState, PageHeader } from "../../ui/states.tsx";

export function AutomationsPage() {
  const { data } = useSuspenseQuery(automationListQuery());
  // The card cost (Settings) turns stopped follow-ups into money not spent; the list never waits for it.
  const costPerCardCents = useQuery(organizationQuery()).data?.cost_per_card_cents ?? null;
  const newButton = (
    <ButtonLink to="/automations/new" search={{}}>
      New automation
    </ButtonLink>
  );

  return (
    <>
      <PageHeader
        title="Automations"
        description="Each automation mails a postcard when your CRM reports something, like a finished job."
        actions={data.automations.length > 0 ? newButton : undefined}
      />
      {data.automations.length === 0 ? (
        <EmptyState title="No automations yet" action={newButton}>
          Build one from an event your CRM sent: pick the event, check who should get a card, write the card
          and see the proof as you type.
        </EmptyState>
      ) : (
        // The trigger sits under the name, so the table fits a phone without scrolling.
        <ScrollTable label="Automations" minWidth={340}>
          <Table striped highlightOnHover captionSide="bottom">
            {/* Counted as Overview's mail safety counts them: a follow-up due in two weeks, or a card
                cancelled or stopped, is neither sent nor waiting. */}
            <Table.Caption>
              Sent to print: cards handed to the printer since the 1st of the month, as Overview counts them.
              Waiting: cards on hold, awaiting your approval or paused by a monthly cap now. A follow-up card
              counts once its day comes.
            </Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name and trigger</Table.Th>
                <Table.Th>Enabled</Table.Th>
                <Table.Th>Cards</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.automations.map((automation) => (
                <Table.Tr key={automation.id}>
                  <Table.Td>
                    <AnchorLink
                      to="/automations/$automationId"
                      params={{ automationId: automation.id }}
                      data-automation-link={automation.id}
                    >
                      {automation.name}
                    </AnchorLink>
                    {[
                      describeTrigger(automation.trigger),
                      followUpCount(automation.steps.length),
                      followUpSummary(automation.follow_up_cards, costPerCardCents),
                      holdoutWords(automation.holdout_percent),
                    ]
                      .filter((line) => line !== null)
                      .map((line) => (
                        <Text size="sm" c="dimmed" key={line}>
                          {line}
                        </Text>
                      ))}
                  </Table.Td>
                  <Table.Td>
                    <Badge color={automation.enabled ? "teal.9" : "gray.7"} variant="filled">
                      {automation.enabled ? "On" : "Off"}
                    </Badge>
                  </Table.Td>
                  {/* Said in words under one heading: two number columns squeezed the name on a phone. */}
                  <Table.Td>
                    <Text size="sm">
                      {automation.cards_sent_to_print_this_month} sent to print this month
                    </Text>
                    <Text size="sm" c="dimmed">
                      {automation.cards_waiting} waiting
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
      <NeighbourCoverage />
    </>
  );
}
