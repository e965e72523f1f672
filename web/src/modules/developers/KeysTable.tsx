import { Button, Table, Text, VisuallyHidden } from "@mantine/core";
import type { Scope } from "../../api/developers.ts";
import { ConfirmDialog } from "../../ui/ConfirmDialog.tsx";
import { formatDateTime } from "../../ui/format.ts";
import { ScrollTable } from "../../ui/ScrollTable.tsx";

/**
 * What a key may let the CRM do, in words: the API's scope names (docs/quickstart.md) stay off the
 * screen. `label` also names the choice in the key list.
 */
export const SCOPES: { value: Scope; label: string; description: string }[] = [
  {
    value: "events:write",
    label: "Send events",
    description: "Your CRM reports a finished job or another event, and your automations mail the cards.",
  },
  {
    value: "import:write",
    label: "Import past jobs",
    description:
      "Your CRM sends a list of past jobs for a later mailing to past customers. Nothing is mailed when they arrive.",
  },
  {
    value: "webhooks:inbound",
    label: "Leads, won deals and customers",
    description:
      "Your CRM receives the leads your cards bring, reports won deals, and names your customers so they get no card. It can also check the key and list your automations.",
  },
];

/**
 * What a key may do, as its row says it: a key allowed every choice reads "Everything", whether it
 * was made with every box ticked or with none named (the demo key, a key made through the API).
 */
export function keyAccessInWords(scopes: readonly string[] | null): string {
  const allowsEverything =
    scopes === null || scopes.length === 0 || SCOPES.every((scope) => scopes.includes(scope.value));
  if (allowsEverything) return "Everything";
  return scopes.map((scope) => SCOPES.find((known) => known.value === scope)?.label ?? scope).join(", ");
}

/** A live key as both lists show it (the owner's Developers tab, the operator's console). */
export interface ListedKey {
  id: string;
  name: string;
  scopes: readonly string[] | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  demo: boolean;
}

const when = (iso: string | null) => (iso ? formatDateTime(iso) : "Never");

/** A key past its expiry date: listed until revoked, but refused. */
const hasExpired = (key: ListedKey) => key.expires_at !== null && Date.parse(key.expires_at) <= Date.now();

/** One of a key's dates, named: "Created Dec 1, 2026, 9:14 AM". */
function KeyDate({ label, value, alert }: { label: string; value: string; alert?: boolean }) {
  return (
    <Text size="sm" c={alert ? "red.9" : undefined} fw={alert ? 600 : undefined}>
      <Text span size="sm" c={alert ? "red.9" : "dimmed"}>
        {label}
      </Text>{" "}
      {value}
    </Text>
  );
}

/**
 * Live keys with what each may do under its name and its dates under each other, so the table fits
 * a phone whole (spread over five columns, the pinned Revoke covered the Created date), each with
 * its Revoke button.
 */
export function KeysTable<Key extends ListedKey>({
  label,
  minWidth,
  keys,
  demoNote,
  onRevoke,
}: {
  label: string;
  minWidth: number;
  keys: readonly Key[];
  /** Said under the demo key made at first start. */
  demoNote: string;
  onRevoke: (key: Key) => void;
}) {
  return (
    <ScrollTable label={label} minWidth={minWidth}>
      <Table striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name and access</Table.Th>
            <Table.Th>Dates</Table.Th>
            <Table.Th data-row-actions>
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {keys.map((key) => (
            <Table.Tr key={key.id}>
              {/* A name is anything the API took: a long word wraps, a right-to-left one stays in its own box. */}
              <Table.Td style={{ overflowWrap: "anywhere" }}>
                <Text size="sm">
                  <bdi>{key.name || "Unnamed key"}</bdi>
                </Text>
                <Text size="sm" c="dimmed">
                  {keyAccessInWords(key.scopes)}
                </Text>
                {key.demo && (
                  <Text size="sm" c="dimmed">
                    {demoNote}
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                <KeyDate label="Created" value={when(key.created_at)} />
                <KeyDate label="Last used" value={when(key.last_used_at)} />
                {hasExpired(key) ? (
                  <KeyDate label="Expired" value={when(key.expires_at)} alert />
                ) : (
                  <KeyDate label="Expires" value={when(key.expires_at)} />
                )}
              </Table.Td>
              <Table.Td data-row-actions>
                <Button
                  size="xs"
                  variant="outline"
                  color="red.9"
                  aria-label={`Revoke ${key.name || "unnamed key"}`}
                  onClick={() => onRevoke(key)}
                >
                  Revoke
                </Button>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollTable>
  );
}

/**
 * Asks before a key is revoked. A revoked key is refused at once by the server that revoked it and
 * within the 5 s other servers trust a cached lookup.
 */
export function RevokeKeyDialog({
  apiKey,
  user,
  revoke,
  onClose,
  onFocusLost,
}: {
  apiKey: ListedKey | null;
  /** Who uses the key, as the sentence names them: "Anything", "The contractor's CRM or anything else". */
  user: string;
  revoke: (keyId: string) => Promise<unknown>;
  onClose: () => void;
  onFocusLost: () => void;
}) {
  return (
    <ConfirmDialog
      opened={apiKey !== null}
      title="Revoke this key?"
      keepLabel="Keep it"
      confirmLabel="Revoke key"
      pendingLabel="Revoking the key…"
      failureTitle="The key was not revoked"
      onClose={onClose}
      onConfirm={async () => {
        if (apiKey) await revoke(apiKey.id);
      }}
      onFocusLost={onFocusLost}
    >
      <Text size="sm">
        {user} using{" "}
        <strong>
          <bdi>{apiKey?.name || "this key"}</bdi>
        </strong>{" "}
        stops working within seconds. This cannot be undone.
      </Text>
    </ConfirmDialog>
  );
}
