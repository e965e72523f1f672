import { Alert, Button, Code, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { ApiError, errorMessage } from "../../api/errors.ts";
import { type BackupListing, backupsQuery, useCreateBackup } from "../../api/operator.ts";
import { useRefocusAfterBusy } from "../../ui/focus.ts";
import { formatDateTime } from "../../ui/format.ts";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { EmptyState, LoadError, Loading } from "../../ui/states.tsx";

const megabytes = (bytes: number) =>
  `${(bytes / 1_048_576).toLocaleString(undefined, { maximumFractionDigits: 1 })} MB`;
const fileName = (file: string) => file.split(/[\\/]/).pop() ?? file;

/** Backups of the embedded database: the schedule, the last failure, each file, and a backup now. */
export function BackupsPanel() {
  const backups = useQuery(backupsQuery());
  const create = useCreateBackup();
  const backUpButton = useRefocusAfterBusy(create.isPending);
  return (
    <section aria-labelledby="backups-heading">
      <Title order={2} size="h3" id="backups-heading" mb="sm">
        Backups
      </Title>
      {backups.isPending ? (
        <Loading label="Loading backups" />
      ) : backups.isError ? (
        backups.error instanceof ApiError && backups.error.status === 409 ? (
          <Text size="sm">{backups.error.message}</Text>
        ) : (
          <LoadError error={backups.error} retry={() => backups.refetch()} />
        )
      ) : (
        <Stack gap="sm">
          <Group justify="space-between" align="flex-start">
            <Text size="sm" style={{ flex: "1 1 280px" }}>
              {scheduleInWords(backups.data.schedule)} Restore one with{" "}
              <Code>npm run db:restore -- FILE</Code> into an empty data directory.
            </Text>
            <Button ref={backUpButton} onClick={() => create.mutate()} loading={create.isPending}>
              Back up now
            </Button>
          </Group>
          {create.isError && (
            <Alert color="red" title="The backup failed">
              {errorMessage(create.error)}
            </Alert>
          )}
          {backups.data.last_failure && (
            <Alert color="red" title="The last backup failed">
              {backups.data.last_failure.scheduled ? "The scheduled backup" : "The backup asked for"} of{" "}
              {formatDateTime(backups.data.last_failure.at)} failed: {backups.data.last_failure.reason}
            </Alert>
          )}
          {backups.data.backups.length === 0 ? (
            <EmptyState order={3} title="No backups yet">
              Back up now, or wait for the schedule.
            </EmptyState>
          ) : (
            <ScrollTable label="Backup files" minWidth={520}>
              <Table striped>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Taken</Table.Th>
                    <Table.Th>File</Table.Th>
                    <Table.Th>Size</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {backups.data.backups.map((backup) => (
                    <Table.Tr key={backup.file}>
                      <Table.Td>{formatDateTime(backup.created_at)}</Table.Td>
                      <Table.Td>
                        <Code title={backup.file}>{fileName(backup.file)}</Code>
                      </Table.Td>
                      <Table.Td>{megabytes(backup.bytes)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollTable>
          )}
        </Stack>
      )}
    </section>
  );
}

function scheduleInWords(schedule: BackupListing["schedule"]): string {
  if (schedule.interval_hours === 0) return "Scheduled backups are off (BACKUP_INTERVAL_HOURS=0).";
  const next = schedule.next_at ? ` Next: ${formatDateTime(schedule.next_at)}.` : "";
  return `A backup is taken every ${schedule.interval_hours} h and the newest ${schedule.keep} are kept.${next}`;
}
