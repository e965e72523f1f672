import { Badge, Button, Stack, Table, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { deliveriesQuery, subscriptionsQuery } from "../../api/developers.ts";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { EmptyState, LoadError, Loading } from "../../ui/states.tsx";
import { CodeSnippet } from "./CodeSnippet.tsx";
import { subscribeCurl } from "./snippets.ts";

export function WebhooksPanel() {
  const subscriptions = useQuery(subscriptionsQuery());
  const [open, setOpen] = useState<string | null>(null);

  if (subscriptions.isPending) return <Loading label="Loading webhook subscriptions" />;
  if (subscriptions.isError)
    return <LoadError error={subscriptions.error} retry={() => subscriptions.refetch()} />;
  if (subscriptions.data.subscriptions.length === 0) {
    return (
      <EmptyState title="No webhook subscriptions yet">
        <Stack gap="sm">
          <Text size="sm">
            Porchlight sends each new lead to your CRM by webhook. Your CRM (or developer) subscribes with its
            API key:
          </Text>
          <CodeSnippet label="Subscribe command" code={subscribeCurl(window.location.origin)} />
        </Stack>
      </EmptyState>
    );
  }
  return (
    <Stack>
      <ScrollTable label="Webhook subscriptions" minWidth={560}>
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>URL</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Last delivery</Table.Th>
              <Table.Th>Deliveries</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {subscriptions.data.subscriptions.map((subscription) => (
              <Table.Tr key={subscription.id}>
                <Table.Td style={{ wordBreak: "break-all" }}>{subscription.target_url}</Table.Td>
                <Table.Td>{new Date(subscription.created_at).toLocaleString()}</Table.Td>
                <Table.Td>
                  {subscription.last_delivery
                    ? `${subscription.last_delivery.outcome}${subscription.last_delivery.status_code ? ` (${subscription.last_delivery.status_code})` : ""}, ${new Date(subscription.last_delivery.at).toLocaleString()}`
                    : "None yet"}
                </Table.Td>
                <Table.Td>
                  <Button
                    size="xs"
                    variant="default"
                    aria-expanded={open === subscription.id}
                    onClick={() => setOpen(open === subscription.id ? null : subscription.id)}
                  >
                    {open === subscription.id ? "Hide deliveries" : "Show deliveries"}
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollTable>
      {open && <DeliveryLog subscriptionId={open} />}
    </Stack>
  );
}

function DeliveryLog({ subscriptionId }: { subscriptionId: string }) {
  const deliveries = useQuery(deliveriesQuery(subscriptionId));
  return (
    <section aria-labelledby="deliveries-heading">
      <Title order={3} size="h5" id="deliveries-heading" mb="xs">
        Deliveries
      </Title>
      {deliveries.isPending ? (
        <Loading label="Loading deliveries" />
      ) : deliveries.isError ? (
        <LoadError error={deliveries.error} retry={() => deliveries.refetch()} />
      ) : deliveries.data.deliveries.length === 0 ? (
        <Text size="sm">Nothing delivered yet: a delivery is made when a lead comes in.</Text>
      ) : (
        <ScrollTable label="Deliveries" minWidth={480}>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>Status code</Table.Th>
                <Table.Th>Attempt</Table.Th>
                <Table.Th>Outcome</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {deliveries.data.deliveries.map((delivery) => (
                <Table.Tr key={delivery.id}>
                  <Table.Td>{new Date(delivery.created_at).toLocaleString()}</Table.Td>
                  <Table.Td>{delivery.status_code ?? "No answer"}</Table.Td>
                  <Table.Td>{delivery.attempt}</Table.Td>
                  <Table.Td>
                    <Badge variant="outline" color="gray.8">
                      {delivery.outcome}
                    </Badge>
                    {delivery.error && (
                      <Text size="xs" mt={2}>
                        {delivery.error}
                      </Text>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollTable>
      )}
    </section>
  );
}
