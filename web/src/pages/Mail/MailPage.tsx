import { Badge, Button, Group, Table, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { automationListQuery } from "../../api/automations.ts";
import { piecesQuery } from "../../api/mail.ts";
import { ButtonLink } from "../../ui/links.tsx";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { EmptyState, LoadError, Loading, PageHeader } from "../../ui/states.tsx";

export function MailPage() {
  const [cursors, setCursors] = useState<string[]>([]);
  const pieces = useQuery(piecesQuery(cursors.at(-1)));
  // Pieces name their automation by id; the list gives its name (a deleted one shows as a dash).
  const automations = useQuery(automationListQuery());
  const automationName = (id: string | null) =>
    automations.data?.automations.find((item) => item.id === id)?.name ?? "—";

  return (
    <>
      <PageHeader title="Mail" description="Every postcard your automations send, newest first." />
      {pieces.isPending ? (
        <Loading label="Loading your mail" />
      ) : pieces.isError ? (
        <LoadError error={pieces.error} retry={() => pieces.refetch()} />
      ) : pieces.data.pieces.length === 0 && cursors.length === 0 ? (
        <EmptyState
          title="No postcards yet"
          action={
            <ButtonLink to="/automations" variant="light">
              Go to Automations
            </ButtonLink>
          }
        >
          A postcard appears here as soon as an enabled automation matches an event from your CRM.
        </EmptyState>
      ) : (
        <>
          <ScrollTable label="Postcards" minWidth={640}>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>Recipient</Table.Th>
                  <Table.Th>Address</Table.Th>
                  <Table.Th>Automation</Table.Th>
                  <Table.Th>Status</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {pieces.data.pieces.map((piece) => (
                  <Table.Tr key={piece.id}>
                    <Table.Td>{new Date(piece.created_at).toLocaleString()}</Table.Td>
                    <Table.Td>{piece.recipient_name ?? "—"}</Table.Td>
                    <Table.Td>{piece.address}</Table.Td>
                    <Table.Td>{automationName(piece.automation_id)}</Table.Td>
                    <Table.Td>
                      <Badge variant="outline" color="gray.8">
                        {piece.status}
                      </Badge>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
          <Group mt="md">
            {cursors.length > 0 && (
              <Button variant="default" onClick={() => setCursors(cursors.slice(0, -1))}>
                Newer
              </Button>
            )}
            {pieces.data.next_cursor && (
              <Button
                variant="default"
                onClick={() => setCursors([...cursors, pieces.data.next_cursor as string])}
              >
                Older
              </Button>
            )}
            <Text size="sm" c="dimmed">
              Page {cursors.length + 1}
            </Text>
          </Group>
        </>
      )}
    </>
  );
}
