import { Alert, Badge, Button, Code, Group, List, Paper, Stack, TagsInput, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useRef, useState } from "react";
import {
  type HubSpotConnection,
  type HubSpotStatus,
  hubspotQuery,
  useConnectHubSpot,
  useDisconnectHubSpot,
  useSetWonStages,
} from "../../api/connectors.ts";
import { ApiError } from "../../api/errors.ts";
import { ConfirmDialog } from "../../ui/ConfirmDialog.tsx";
import { refocusAfterBusy } from "../../ui/focus.ts";
import { formatDateTime } from "../../ui/format.ts";
import { AnchorLink } from "../../ui/links.tsx";
import { LoadError, Loading } from "../../ui/states.tsx";

/** What HubSpot's redirect back (`?hubspot=…`) means to the owner, and what to do next. */
const OUTCOMES: Record<string, { color: string; title: string; text: string }> = {
  connected: {
    color: "teal",
    title: "HubSpot is connected",
    text: "New contacts and deals in HubSpot now reach Porchlight. Bind an automation to one of the event types below.",
  },
  denied: {
    color: "yellow",
    title: "Nothing was connected",
    text: "Access was not granted on HubSpot's page. Connect again when you are ready.",
  },
  state_refused: {
    color: "red",
    title: "That connect link can no longer be used",
    text: "It was used already, is more than 10 minutes old, or was opened in another browser. Start again with Connect HubSpot.",
  },
  portal_taken: {
    color: "red",
    title: "This HubSpot account is connected to another organization",
    text: "One HubSpot account sends its records to one Porchlight organization. Disconnect it there first.",
  },
  failed: {
    color: "red",
    title: "HubSpot did not complete the connection",
    text: "Try again in a moment. If it keeps failing, ask your operator to check the HubSpot app's settings.",
  },
  signed_out: {
    color: "red",
    title: "You were signed out",
    text: "Sign in again, then connect HubSpot from here.",
  },
  not_configured: {
    color: "yellow",
    title: "HubSpot is not set up on this server",
    text: "Your operator has not set up a HubSpot app yet.",
  },
};

export function ConnectionsPanel({
  outcome,
  onOutcomeSeen,
}: {
  outcome?: string;
  onOutcomeSeen: () => void;
}) {
  const hubspot = useQuery(hubspotQuery());
  if (hubspot.isPending) return <Loading label="Loading connections" />;
  if (hubspot.isError) {
    if (hubspot.error instanceof ApiError && hubspot.error.status === 403) {
      return (
        <Alert title="Only owners manage connections">
          Connecting a CRM gives Porchlight access to its contacts and deals, so only an owner of your
          organization connects or disconnects one.
        </Alert>
      );
    }
    return <LoadError error={hubspot.error} retry={() => hubspot.refetch()} />;
  }
  const shown = outcome ? OUTCOMES[outcome] : undefined;
  return (
    <Stack gap="lg">
      {shown && (
        <Alert
          color={shown.color}
          title={shown.title}
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={onOutcomeSeen}
        >
          {shown.text}
        </Alert>
      )}
      <HubSpotCard status={hubspot.data} />
    </Stack>
  );
}

function HubSpotCard({ status }: { status: HubSpotStatus }) {
  const { connection } = status;
  // Asked here, not in Connected: that goes once HubSpot is disconnected, the dialog closes after
  // and hands the focus (its Disconnect button gone) to the card's heading.
  const [confirming, setConfirming] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="hubspot-heading">
      <Stack gap="md">
        <Group justify="space-between" align="center" gap="xs">
          <Title order={2} size="h4" id="hubspot-heading" ref={heading} tabIndex={-1}>
            HubSpot
          </Title>
          {connection &&
            (connection.needs_reconnect ? (
              <Badge variant="outline" color="red.9">
                Reconnect needed
              </Badge>
            ) : (
              <Badge variant="filled" color="teal.9">
                Connected
              </Badge>
            ))}
        </Group>
        {!status.configured ? (
          <Alert title="HubSpot is not set up on this server">
            Connecting HubSpot needs a HubSpot app that whoever runs Porchlight for you sets up once for this
            server. Until then, your CRM can still send events with an{" "}
            {/* Darker than the theme's link blue: it sits on the alert's blue tint. */}
            <AnchorLink to="/developers" search={{ tab: "keys" }} c="blue.9">
              API key
            </AnchorLink>
            . Zapier connects without code too: ask whoever runs Porchlight for you to invite you to its
            Porchlight integration, then sign in there with an API key.
          </Alert>
        ) : connection ? (
          <Connected
            connection={connection}
            eventTypes={status.event_types}
            onDisconnect={() => setConfirming(true)}
          />
        ) : (
          <NotConnected eventTypes={status.event_types} />
        )}
      </Stack>
      <DisconnectModal
        opened={confirming}
        onClose={() => setConfirming(false)}
        onFocusLost={() => heading.current?.focus()}
      />
    </Paper>
  );
}

function ConnectButton({ label }: { label: string }) {
  const connect = useConnectHubSpot();
  return (
    <Stack gap="xs" align="flex-start">
      <Button
        loading={connect.isPending || connect.isSuccess}
        onClick={() =>
          connect.mutate(undefined, { onSuccess: (answer) => window.location.assign(answer.authorize_url) })
        }
      >
        {label}
      </Button>
      {connect.isError && (
        <Text size="sm" c="red.9" role="alert">
          {connect.error.message}
        </Text>
      )}
    </Stack>
  );
}

function EventTypes({ eventTypes }: { eventTypes: string[] }) {
  return (
    <Stack gap={4}>
      <Text size="sm">Automations can be bound to these event types:</Text>
      <List size="sm" spacing={2}>
        {eventTypes.map((type) => (
          <List.Item key={type}>
            <Code>{type}</Code>
          </List.Item>
        ))}
      </List>
    </Stack>
  );
}

function NotConnected({ eventTypes }: { eventTypes: string[] }) {
  return (
    <Stack gap="sm" align="flex-start">
      <Text size="sm" maw={640}>
        Connect your HubSpot account and its new and changed contacts and deals reach Porchlight on their own,
        with no developer: a deal moved to a won stage is recorded as revenue and matched to the card that
        earned it. Porchlight only reads from HubSpot.
      </Text>
      <EventTypes eventTypes={eventTypes} />
      <ConnectButton label="Connect HubSpot" />
    </Stack>
  );
}

function Connected({
  connection,
  eventTypes,
  onDisconnect,
}: {
  connection: HubSpotConnection;
  eventTypes: string[];
  /** Asks whether to disconnect. */
  onDisconnect: () => void;
}) {
  return (
    <Stack gap="md">
      {connection.needs_reconnect && (
        <Alert color="red" title="HubSpot no longer accepts this connection">
          The app was probably uninstalled from HubSpot. Connect again to keep receiving contacts and deals.
        </Alert>
      )}
      <Stack gap={4}>
        <Text size="sm">
          HubSpot account (portal) <strong>{connection.portal_id}</strong>
        </Text>
        <Text size="sm">Connected {formatDateTime(connection.connected_at)}</Text>
        <Text size="sm">
          Last event received:{" "}
          {connection.last_event_at ? formatDateTime(connection.last_event_at) : "none yet"}
        </Text>
      </Stack>
      <WonStagesForm stages={connection.won_stages} />
      <EventTypes eventTypes={eventTypes} />
      <Group gap="xs">
        {connection.needs_reconnect && <ConnectButton label="Reconnect HubSpot" />}
        <Button variant="outline" color="red.9" onClick={onDisconnect}>
          Disconnect
        </Button>
      </Group>
    </Stack>
  );
}

function WonStagesForm({ stages }: { stages: string[] }) {
  const [value, setValue] = useState(stages);
  const save = useSetWonStages();
  // Save stages is disabled once saved (nothing changed): the focus it dropped goes to the stages,
  // which also say a refusal.
  const stagesField = useRef<HTMLInputElement>(null);
  const changed = value.join("\n") !== stages.join("\n");
  return (
    <Stack gap="xs" align="flex-start" maw={520} w="100%">
      <TagsInput
        ref={stagesField}
        w="100%"
        label="Won deal stages"
        description="A deal moved into one of these stages is recorded as won revenue. Use the stage's internal ID from HubSpot's pipeline settings (closedwon in the default pipeline)."
        value={value}
        onChange={setValue}
        maxTags={20}
        splitChars={[",", " "]}
        error={save.isError ? save.error.message : undefined}
      />
      <Button
        size="xs"
        variant="default"
        disabled={!changed || value.length === 0}
        loading={save.isPending}
        onClick={() => save.mutate(value, { onSettled: () => refocusAfterBusy(() => stagesField.current) })}
      >
        Save stages
      </Button>
    </Stack>
  );
}

function DisconnectModal({
  opened,
  onClose,
  onFocusLost,
}: {
  opened: boolean;
  onClose: () => void;
  onFocusLost: () => void;
}) {
  const disconnect = useDisconnectHubSpot();
  return (
    <ConfirmDialog
      opened={opened}
      title="Disconnect HubSpot?"
      keepLabel="Keep connected"
      confirmLabel="Disconnect HubSpot"
      pendingLabel="Disconnecting HubSpot…"
      failureTitle="HubSpot was not disconnected"
      onClose={onClose}
      onConfirm={async () => {
        await disconnect.mutateAsync();
      }}
      onFocusLost={onFocusLost}
    >
      <Text size="sm">
        Porchlight forgets its access to your HubSpot account, and HubSpot's contacts and deals stop arriving.
        Automations and recorded revenue stay. To remove the app from HubSpot as well, uninstall it in
        HubSpot's Connected apps.
      </Text>
    </ConfirmDialog>
  );
}
