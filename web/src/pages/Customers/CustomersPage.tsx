import {
  Alert,
  Anchor,
  Badge,
  Button,
  Checkbox,
  Group,
  Paper,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
  VisuallyHidden,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { useDebouncedValue } from "@mantine/hooks";
import { useInfiniteQuery, useQuery, useSuspenseQuery } from "@tanstack/react-query";
import { getRouteApi } from "@tanstack/react-router";
import { useRef, useState } from "react";
import {
  type Customer,
  customersQuery,
  DO_NOT_MAIL_CSV_URL,
  importsQuery,
  optedOutQuery,
  stoppedCardsWords,
  useAddCustomer,
  useRemoveCustomer,
} from "../../api/customers.ts";
import { isInputRefused } from "../../api/errors.ts";
import { sessionQuery } from "../../api/session.ts";
import { BATCH_ORIGIN_WORDS } from "../../modules/customers/batch-origin.ts";
import { CsvUpload } from "../../modules/customers/CsvUpload.tsx";
import { ConfirmDialog } from "../../ui/ConfirmDialog.tsx";
import { ERROR_ABOVE_INPUT } from "../../ui/field-row.ts";
import { focusFirstInvalid, focusFirstRefused, refocusAfterBusy } from "../../ui/focus.ts";
import { count, formatDateTime, formatDay } from "../../ui/format.ts";
import { AnchorLink, ButtonLink } from "../../ui/links.tsx";
import { ScrollTable } from "../../ui/ScrollTable.tsx";
import { useSingleFlight } from "../../ui/single-flight.ts";
import { StagedRows } from "../../ui/staged-rows.tsx";
import { EmptyState, LoadError, Loading, PageHeader } from "../../ui/states.tsx";
import { TabsList } from "../../ui/TabsList.tsx";

const route = getRouteApi("/signed-in/customers");
export const CUSTOMER_TABS = ["list", "past-jobs"] as const;
export type CustomerTab = (typeof CUSTOMER_TABS)[number];

function AddCustomerForm() {
  const add = useAddCustomer();
  const form = useForm({
    initialValues: { address: "", notes: "" },
    validate: { address: (value) => (value.trim() ? null : "Enter the customer's address") },
  });
  const formRef = useRef<HTMLFormElement>(null);
  // A double-click adds once: the second add answered "That home was already on the list".
  const addOnce = useSingleFlight(async (values: typeof form.values) => {
    try {
      await add.mutateAsync({
        address: values.address,
        ...(values.notes ? { notes: values.notes } : {}),
      });
      form.reset();
      // The button, disabled while it spun, lets the focus fall to the page: back to the address, for the next one.
      refocusAfterBusy(() => formRef.current?.querySelector("input"));
    } catch (error) {
      // A refusal lands on the field it names (the address by default); any other failure is said
      // under the form.
      if (isInputRefused(error)) {
        const fields = error.fieldErrors();
        form.setErrors(Object.keys(fields).length > 0 ? fields : { address: error.message });
        focusFirstInvalid(formRef.current);
      }
    }
  });
  return (
    <form
      ref={formRef}
      onSubmit={form.onSubmit((values) => void addOnce(values), focusFirstRefused)}
      noValidate
    >
      <Stack gap="sm">
        {/* The row lines up at its foot, so a refusal is said above the address's input, not under it:
            there it pushed the Notes field and Add customer below the address. */}
        <Group align="flex-end" wrap="wrap">
          <TextInput
            label="Address"
            description="The house number and street, and the city or ZIP"
            placeholder="e.g. 12 Oak St, Springfield, IL 62704"
            inputWrapperOrder={ERROR_ABOVE_INPUT}
            style={{ flex: "2 1 260px" }}
            {...form.getInputProps("address")}
          />
          <TextInput
            label="Notes"
            inputWrapperOrder={ERROR_ABOVE_INPUT}
            style={{ flex: "1 1 160px" }}
            {...form.getInputProps("notes")}
          />
          <Button type="submit" loading={add.isPending}>
            Add customer
          </Button>
        </Group>
        {add.isSuccess && (
          <Text size="sm" role="status">
            {[
              add.data.added === 1 ? "Added." : "That home was already on the list.",
              stoppedCardsWords(add.data.stopped_cards, 1),
              `${add.data.total} ${add.data.total === 1 ? "customer" : "customers"} in all.`,
            ]
              .filter(Boolean)
              .join(" ")}
          </Text>
        )}
        {add.isError && !isInputRefused(add.error) && (
          <LoadError error={add.error} title="The customer was not added" />
        )}
      </Stack>
    </form>
  );
}

function OptedOutHomes({ q }: { q: string }) {
  const homes = useQuery(optedOutQuery(q));
  if (homes.isPending) return <Loading label="Loading opted-out homes" />;
  if (homes.isError) return <LoadError error={homes.error} retry={() => homes.refetch()} />;
  if (homes.data.homes.length === 0)
    return <Text c="dimmed">No home has opted out from a landing page.</Text>;
  return (
    <ScrollTable label="Opted-out homes" minWidth={640}>
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Address</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>When</Table.Th>
            <Table.Th>From the card</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {homes.data.homes.map((home) => (
            <Table.Tr key={home.normalized_address}>
              <Table.Td>{home.address ?? home.normalized_address}</Table.Td>
              <Table.Td>
                <Badge color="orange" variant="light">
                  Opted out
                </Badge>
              </Table.Td>
              <Table.Td>{formatDateTime(home.opted_out_at)}</Table.Td>
              <Table.Td>
                {home.piece_id ? (
                  <AnchorLink to="/mail/$pieceId" params={{ pieceId: home.piece_id }}>
                    {home.automation_name ?? home.campaign_name ?? "The card"}
                  </AnchorLink>
                ) : (
                  "—"
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollTable>
  );
}

/** Where a registered customer came from, in words (the API's source codes otherwise). */
const CUSTOMER_SOURCE_WORDS: Record<string, string> = {
  app: "Added here",
  csv_upload: "A CSV upload",
  lead_won: "Won job (marked in the app)",
  webhook: "Your CRM",
  conversion: "A won deal",
  trigger: "A won deal",
};

/**
 * Asks before a home leaves the customers list: from then on automations may mail it. Homes that
 * opted out from a landing page have no Remove: that was the homeowner's word, not the contractor's.
 */
function RemoveCustomerDialog({
  customer,
  onClose,
  onRemoved,
  onFocusLost,
}: {
  customer: Customer | null;
  onClose: () => void;
  onRemoved: (outcome: { address: string; removed: boolean; total: number }) => void;
  onFocusLost: () => void;
}) {
  const remove = useRemoveCustomer();
  return (
    <ConfirmDialog
      opened={customer !== null}
      title="Take this home off the customers list?"
      keepLabel="Keep it on the list"
      confirmLabel="Remove"
      pendingLabel="Taking the home off the list…"
      failureTitle="The home was not taken off the list"
      onClose={onClose}
      onConfirm={async () => {
        if (!customer) return;
        const outcome = await remove.mutateAsync(customer.normalized_address);
        onRemoved({ address: customer.address, ...outcome });
      }}
      onFocusLost={onFocusLost}
    >
      <Text size="sm">
        From now on your automations may mail <strong>{customer?.address}</strong> again. Cards stopped when
        it was added stay stopped. If your CRM reports this home as a customer again, it is back on the list.
      </Text>
    </ConfirmDialog>
  );
}

function SuppressionList() {
  const { data: session } = useSuspenseQuery(sessionQuery());
  const isOwner = session.role === "owner";
  const [removing, setRemoving] = useState<Customer | null>(null);
  const [removed, setRemoved] = useState<{ address: string; removed: boolean; total: number } | null>(null);
  // The removed row's button is gone with it: the focus goes to the list's search.
  const searchRef = useRef<HTMLInputElement>(null);
  const [search, setSearch] = useState("");
  const [q] = useDebouncedValue(search.trim(), 300);
  const pages = useInfiniteQuery(customersQuery(q));
  const customers = pages.data?.pages.flatMap((page) => page.customers) ?? [];
  const total = pages.data?.pages[0]?.total;

  return (
    <Stack gap="lg">
      <Alert color="blue" title="Homes on this list are never mailed">
        Add your current customers here and no automation sends them a card; cards already waiting to be
        mailed to them are stopped.{" "}
        {isOwner
          ? "If a home was added by mistake, Remove takes it off the list (the cards stopped stay stopped)."
          : "If a home was added by mistake, an owner of your account can take it off the list."}
      </Alert>
      <Paper withBorder p="md" component="section" aria-labelledby="add-customer-heading">
        <Title order={2} size="h4" id="add-customer-heading" mb="sm">
          Add a customer
        </Title>
        <AddCustomerForm />
      </Paper>
      <Paper withBorder p="md" component="section" aria-labelledby="upload-customers-heading">
        <Title order={2} size="h4" id="upload-customers-heading" mb="sm">
          Upload a CSV of customers
        </Title>
        <CsvUpload purpose="customers" submitLabel="Add these customers" />
      </Paper>
      <section aria-labelledby="customer-list-heading">
        <Group justify="space-between" align="flex-end" mb="sm" wrap="wrap">
          <Stack gap={4}>
            <Title order={2} size="h4" id="customer-list-heading">
              Customers (do not mail){total !== undefined ? `: ${total}` : ""}
            </Title>
            {/* Customers and opted-out homes in one file: every home never mailed, for another vendor or the CRM. */}
            <Anchor href={DO_NOT_MAIL_CSV_URL} download="do-not-mail.csv" size="sm">
              Download every home never mailed (CSV)
            </Anchor>
          </Stack>
          <TextInput
            ref={searchRef}
            label="Search addresses"
            value={search}
            onChange={(event) => setSearch(event.currentTarget.value)}
            w={{ base: "100%", sm: 280 }}
          />
        </Group>
        {/* A live region there before its words, so a screen reader says the first removal too. */}
        <div role="status">
          {removed && (
            <Text size="sm" mb="sm">
              {removed.removed
                ? `${removed.address} is off the list: automations may mail this home again.`
                : `${removed.address} was no longer on the list.`}{" "}
              {count(removed.total, "customer")} in all.
            </Text>
          )}
        </div>
        {pages.isPending ? (
          <Loading label="Loading customers" />
        ) : pages.isError ? (
          <LoadError error={pages.error} retry={() => pages.refetch()} />
        ) : customers.length === 0 ? (
          <EmptyState order={3} title={q ? "No customer matches" : "No customers yet"}>
            {q
              ? `No address on the list contains “${q}”. Check the spelling, or clear the search to see the whole list.`
              : "Add your customers above (one address, or a CSV from your CRM) and no automation mails them. Customers your CRM reports and won deals join the list by themselves."}
          </EmptyState>
        ) : (
          <Stack gap="sm">
            <ScrollTable label="Registered customers" minWidth={640}>
              <Table striped>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Address</Table.Th>
                    <Table.Th>Notes</Table.Th>
                    <Table.Th>From</Table.Th>
                    <Table.Th>Added</Table.Th>
                    {isOwner && (
                      <Table.Th data-row-actions>
                        <VisuallyHidden>Actions</VisuallyHidden>
                      </Table.Th>
                    )}
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  <StagedRows items={customers}>
                    {(customer) => (
                      <Table.Tr key={customer.normalized_address}>
                        <Table.Td>{customer.address}</Table.Td>
                        <Table.Td>{customer.notes ?? ""}</Table.Td>
                        <Table.Td>{CUSTOMER_SOURCE_WORDS[customer.source] ?? customer.source}</Table.Td>
                        <Table.Td>{formatDay(customer.created_at)}</Table.Td>
                        {isOwner && (
                          <Table.Td data-row-actions>
                            <Button
                              size="xs"
                              variant="outline"
                              color="red.9"
                              aria-label={`Remove ${customer.address}`}
                              onClick={() => setRemoving(customer)}
                            >
                              Remove
                            </Button>
                          </Table.Td>
                        )}
                      </Table.Tr>
                    )}
                  </StagedRows>
                </Table.Tbody>
              </Table>
            </ScrollTable>
            {pages.hasNextPage && (
              <Group>
                <Button
                  variant="light"
                  loading={pages.isFetchingNextPage}
                  onClick={() => pages.fetchNextPage()}
                >
                  Show more
                </Button>
              </Group>
            )}
          </Stack>
        )}
      </section>
      <RemoveCustomerDialog
        customer={removing}
        onClose={() => setRemoving(null)}
        onRemoved={setRemoved}
        onFocusLost={() => searchRef.current?.focus()}
      />
      <section aria-labelledby="opted-out-heading">
        <Title order={2} size="h4" id="opted-out-heading" mb="sm">
          Do-not-mail list: homes that opted out from a landing page
        </Title>
        <OptedOutHomes q={q} />
      </section>
    </Stack>
  );
}

function PastJobs() {
  const batches = useQuery(importsQuery());
  const [chosen, setChosen] = useState<string[]>([]);
  const toggle = (id: string, on: boolean) =>
    setChosen((current) => (on ? [...current, id] : current.filter((other) => other !== id)));
  const hasBatches = (batches.data?.imports.length ?? 0) > 0;

  return (
    <Stack gap="lg">
      <Paper withBorder p="md" component="section" aria-labelledby="upload-jobs-heading">
        <Title order={2} size="h4" id="upload-jobs-heading" mb="sm">
          Upload a CSV of past jobs
        </Title>
        <Text size="sm" c="dimmed" mb="sm">
          Each address is checked and placed on the map; nothing is mailed until you start a mailing from the
          imported batches below.
        </Text>
        <CsvUpload purpose="jobs" submitLabel="Import these jobs" />
      </Paper>
      <section aria-labelledby="batches-heading">
        <Group justify="space-between" align="flex-end" mb="sm" wrap="wrap">
          <Title order={2} size="h4" id="batches-heading">
            Imported batches
          </Title>
          <ButtonLink
            to="/customers/mailings/new"
            search={{ batches: chosen.join(",") }}
            disabled={chosen.length === 0}
            aria-disabled={chosen.length === 0}
            aria-describedby={chosen.length === 0 && hasBatches ? "new-mailing-hint" : undefined}
            onClick={(event) => chosen.length === 0 && event.preventDefault()}
          >
            New mailing
            {chosen.length > 0 ? ` from ${chosen.length} batch${chosen.length === 1 ? "" : "es"}` : ""}
          </ButtonLink>
        </Group>
        {/* Without it New mailing sat greyed out with nothing saying what turns it on. */}
        {hasBatches && (
          <Text size="sm" c="dimmed" mb="sm" id="new-mailing-hint">
            Tick the batches to mail in the Mail column, then choose New mailing to write their card.
          </Text>
        )}
        {batches.isPending ? (
          <Loading label="Loading batches" />
        ) : batches.isError ? (
          <LoadError error={batches.error} retry={() => batches.refetch()} />
        ) : batches.data.imports.length === 0 ? (
          <EmptyState order={3} title="No past jobs imported yet">
            Upload a CSV of jobs you finished in the past (one address per line, with the job's date if you
            have it), then tick its batch here and start a mailing to win those customers back. Your CRM or
            developer can also import jobs: see Developers.
          </EmptyState>
        ) : (
          <ScrollTable label="Imported batches table" minWidth={860}>
            <Table striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Mail</Table.Th>
                  <Table.Th>Imported</Table.Th>
                  <Table.Th>Kind</Table.Th>
                  <Table.Th>Origin</Table.Th>
                  <Table.Th>Rows imported</Table.Th>
                  <Table.Th>No address</Table.Th>
                  <Table.Th>Not found on the map</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {batches.data.imports.map((batch) => (
                  <Table.Tr key={batch.id}>
                    <Table.Td>
                      <Checkbox
                        aria-label={`Mail the batch of ${formatDateTime(batch.staged_at)}`}
                        checked={chosen.includes(batch.id)}
                        onChange={(event) => toggle(batch.id, event.currentTarget.checked)}
                      />
                    </Table.Td>
                    <Table.Td>
                      <AnchorLink to="/customers/batches/$importId" params={{ importId: batch.id }}>
                        {formatDateTime(batch.staged_at)}
                      </AnchorLink>
                    </Table.Td>
                    <Table.Td>{batch.source === "jobs" ? "Past jobs" : "Customers"}</Table.Td>
                    <Table.Td>{BATCH_ORIGIN_WORDS[batch.origin]}</Table.Td>
                    <Table.Td>{batch.staged}</Table.Td>
                    <Table.Td>{batch.skipped_no_address}</Table.Td>
                    <Table.Td>{batch.skipped_geocode_failed}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollTable>
        )}
      </section>
    </Stack>
  );
}

export function CustomersPage() {
  const { tab } = route.useSearch();
  const navigate = route.useNavigate();
  return (
    <>
      <PageHeader
        title="Customers"
        description="Homes on your customers list, and homes that opted out, are never mailed. Past jobs you import stay off that list: they are mailed only when you start a mailing from them."
      />
      <Tabs
        value={tab}
        onChange={(value) =>
          CUSTOMER_TABS.includes(value as CustomerTab) &&
          navigate({ search: { tab: value as CustomerTab }, replace: true })
        }
        keepMounted={false}
      >
        <TabsList mb="md" value={tab}>
          <Tabs.Tab value="list">Customers (do not mail)</Tabs.Tab>
          <Tabs.Tab value="past-jobs">Past jobs</Tabs.Tab>
        </TabsList>
        <Tabs.Panel value="list">
          <SuppressionList />
        </Tabs.Panel>
        <Tabs.Panel value="past-jobs">
          <PastJobs />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
