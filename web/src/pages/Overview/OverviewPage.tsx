import { Alert, Card, Group, List, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { eventTypesQuery } from "../../api/events.ts";
import { unopenedLeadsQuery } from "../../api/leads.ts";
import { mailSafetyQuery, reviewInApprovals } from "../../api/mail-safety.ts";
import { attentionQuery, firstStepsQuery, overviewQuery } from "../../api/overview.ts";
import { CapsOverview } from "../../modules/mail-safety/CapsOverview.tsx";
import { FigureBars } from "../../ui/FigureBars.tsx";
import { formatDateTime } from "../../ui/format.ts";
import { AnchorLink, ButtonLink } from "../../ui/links.tsx";
import { EmptyState, LoadError, Loading, PageHeader } from "../../ui/states.tsx";
import { FirstStepsChecklist } from "./FirstSteps.tsx";
import { OverviewFiguresSection } from "./OverviewFigures.tsx";

export function OverviewPage() {
  const loading = useOverviewLoading();
  return (
    <>
      <PageHeader
        title="Overview"
        description="What needs your attention, what your postcards brought in, and what your CRM has been sending."
      />
      {loading ? (
        <Loading label="Loading your overview" />
      ) : (
        <Stack gap="xl">
          <FirstStepsChecklist />
          <NeedsAttention />
          <OverviewFiguresSection />
          <CapsOverview />
          <EventActivity />
        </Stack>
      )}
    </>
  );
}

/**
 * True while any of the sections' reads is under way. They are all asked for at once (here, and by
 * the route's loader before): the page shows one loader until the last answers, rather than a
 * spinner per section that each drops out when its own is in. A read that fails is said by its section.
 */
function useOverviewLoading(): boolean {
  const reads = [
    useQuery(firstStepsQuery()),
    useQuery(attentionQuery()),
    useQuery(eventTypesQuery()),
    useQuery(unopenedLeadsQuery()),
    useQuery(overviewQuery()),
    useQuery(mailSafetyQuery()),
  ];
  return reads.some((read) => read.isPending);
}

/** How many new leads are listed on Overview; the rest are in Leads. */
const NEW_LEADS_SHOWN = 5;

function NewLeads() {
  const leads = useQuery(unopenedLeadsQuery());
  if (!leads.isSuccess || leads.data.leads.length === 0) return null;
  const count = leads.data.leads.length;
  const more = leads.data.next_cursor !== null;
  const title =
    count === 1
      ? "1 new lead you have not opened yet"
      : `${count}${more ? "+" : ""} new leads you have not opened yet`;
  return (
    <Alert color="indigo" title={title}>
      <List size="sm">
        {leads.data.leads.slice(0, NEW_LEADS_SHOWN).map((lead) => (
          <List.Item key={lead.id}>
            {/* indigo.9: the theme's link colour is under 4.5:1 on the alert's light indigo. */}
            <AnchorLink to="/leads/$leadId" params={{ leadId: lead.id }} size="sm" c="indigo.9">
              {lead.name || lead.email || lead.phone || "A lead without a name"}
            </AnchorLink>{" "}
            {/* On a phone the date moves to the next line whole, never split after its year. */}
            <span style={{ whiteSpace: "nowrap" }}>({formatDateTime(lead.received_at)})</span>
          </List.Item>
        ))}
      </List>
      {count > NEW_LEADS_SHOWN && (
        <AnchorLink to="/leads" size="sm" c="indigo.9">
          See all leads
        </AnchorLink>
      )}
    </Alert>
  );
}

/** Cards held for approval (the navigation's badge counts them too), with the way to them. */
function AwaitingApproval({ waiting }: { waiting: number }) {
  if (waiting === 0) return null;
  return (
    <Alert
      color="indigo"
      title={waiting === 1 ? "1 card waits for your approval" : `${waiting} cards wait for your approval`}
    >
      <AnchorLink to="/approvals" size="sm" c="indigo.9">
        {reviewInApprovals(waiting)}
      </AnchorLink>
    </Alert>
  );
}

function NeedsAttention() {
  const attention = useQuery(attentionQuery());
  const eventTypes = useQuery(eventTypesQuery());
  const newLeads = useQuery(unopenedLeadsQuery());
  const hasNewLeads = newLeads.isSuccess && newLeads.data.leads.length > 0;
  // The layout's badge reads the same query: no request of its own.
  const waiting = useQuery(mailSafetyQuery()).data?.awaiting_approval ?? 0;

  if (attention.isPending || eventTypes.isPending) return <Loading label="Checking what needs attention" />;
  if (eventTypes.isError) return <LoadError error={eventTypes.error} retry={() => eventTypes.refetch()} />;
  // A type only test cards came with (from a turned-off automation's builder) mailed its cards.
  const unbound = eventTypes.data.filter((type) => !type.bound && !type.only_test_cards);
  // The unbound event types are listed from the event types themselves; other items come from the server.
  const otherItems = attention.isSuccess
    ? attention.data.items.filter((item) => item.kind !== "unbound_event_type")
    : [];

  return (
    <section aria-labelledby="attention-heading">
      <Title order={2} size="h3" id="attention-heading" mb="sm">
        Needs attention
      </Title>
      {attention.isError && <LoadError error={attention.error} retry={() => attention.refetch()} />}
      {unbound.length === 0 && otherItems.length === 0 && !hasNewLeads && waiting === 0 ? (
        <Text>Nothing needs your attention right now.</Text>
      ) : (
        <Stack>
          <AwaitingApproval waiting={waiting} />
          <NewLeads />
          {otherItems.map((item) => (
            <Alert key={`${item.kind}-${item.message}`} color="orange" title={item.message}>
              {item.kind === "undeliverable_pieces" && (
                <AnchorLink to="/mail" search={{ status: "undeliverable" }} size="sm">
                  See the undeliverable cards
                </AnchorLink>
              )}
              {item.kind === "subscription_failing" && (
                <AnchorLink to="/developers" search={{ tab: "webhooks" }} size="sm">
                  See the deliveries
                </AnchorLink>
              )}
              {item.kind === "events_without_address" && item.event_type && (
                <AnchorLink
                  to="/developers"
                  search={{ tab: "samples", event_type: item.event_type }}
                  size="sm"
                >
                  See the events as your CRM sent them
                </AnchorLink>
              )}
              {item.kind === "capped_pieces" && (
                <Group gap="md">
                  <AnchorLink to="/mail" search={{ status: "capped" }} size="sm">
                    See the waiting cards
                  </AnchorLink>
                  <AnchorLink to="/settings" search={{ tab: "safety" }} size="sm">
                    See the caps
                  </AnchorLink>
                </Group>
              )}
              {item.kind === "no_return_address" && (
                <AnchorLink to="/settings" search={{ tab: "profile" }} size="sm">
                  Add a return address
                </AnchorLink>
              )}
            </Alert>
          ))}
          {unbound.length > 0 && (
            <Alert color="orange" title="Events that mail nothing">
              <Text size="sm" mb="xs">
                Your CRM sends these event types, but no automation that is on uses them, so they mail
                nothing. If one is a typo, fix it in the CRM; otherwise turn its automation on, or build one.
              </Text>
              <List size="sm">
                {unbound.map((type) => (
                  <List.Item key={type.event_type}>
                    <code>{type.event_type}</code> ({type.count} received){" "}
                    {type.turned_off_automation ? (
                      // Building another would make a duplicate: the one that exists is only switched off.
                      <>
                        is used by {type.turned_off_automation.name}, which is turned off.{" "}
                        <AnchorLink
                          to="/automations/$automationId"
                          params={{ automationId: type.turned_off_automation.id }}
                          size="sm"
                        >
                          Open {type.turned_off_automation.name}
                        </AnchorLink>
                      </>
                    ) : (
                      <AnchorLink to="/automations/new" search={{ event_type: type.event_type }} size="sm">
                        Build an automation for {type.event_type}
                      </AnchorLink>
                    )}
                  </List.Item>
                ))}
              </List>
            </Alert>
          )}
        </Stack>
      )}
    </section>
  );
}

function EventActivity() {
  const eventTypes = useQuery(eventTypesQuery());
  if (eventTypes.isPending) return <Loading />;
  if (eventTypes.isError) return <LoadError error={eventTypes.error} retry={() => eventTypes.refetch()} />;

  return (
    <section aria-labelledby="events-heading">
      <Title order={2} size="h3" id="events-heading" mb="sm">
        Events received
      </Title>
      {eventTypes.data.length === 0 ? (
        <EmptyState
          order={3}
          title="No events yet"
          action={
            <ButtonLink to="/developers" search={{ tab: "samples" }} variant="light">
              See how to send a first event
            </ButtonLink>
          }
        >
          Connect your CRM (or send a test event) so Porchlight can mail a postcard when a job is done or a
          deal is won. No CRM yet? Save an automation and send yourself a test card from it.
        </EmptyState>
      ) : (
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <Card withBorder component="figure" m={0} aria-label="Events received by type">
            <FigureBars
              data={eventTypes.data.map((type) => ({ name: type.event_type, value: type.count }))}
              barColor="indigo"
            />
          </Card>
          <Card withBorder>
            <List size="sm" spacing="xs">
              {eventTypes.data.map((type) => (
                <List.Item key={type.event_type}>
                  <code>{type.event_type}</code>: {type.count} received, last{" "}
                  {formatDateTime(type.last_seen_at)}{" "}
                  {type.bound
                    ? ""
                    : type.turned_off_automation
                      ? "(its automation is off)"
                      : "(no automation)"}
                </List.Item>
              ))}
            </List>
          </Card>
        </SimpleGrid>
      )}
    </section>
  );
}
