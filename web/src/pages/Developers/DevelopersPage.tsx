import { Anchor, Tabs } from "@mantine/core";
import { getRouteApi } from "@tanstack/react-router";
import { ApiKeysPanel } from "../../modules/developers/ApiKeysPanel.tsx";
import { EventSamplesPanel } from "../../modules/developers/EventSamplesPanel.tsx";
import { McpPanel } from "../../modules/developers/McpPanel.tsx";
import { WebhooksPanel } from "../../modules/developers/WebhooksPanel.tsx";
import { DEVELOPER_TABS, type DeveloperTab } from "../../routes/search.ts";
import { PageHeader } from "../../ui/states.tsx";
import { TabsList } from "../../ui/TabsList.tsx";

const route = getRouteApi("/signed-in/developers");

export function DevelopersPage() {
  const { tab, event_type } = route.useSearch();
  const navigate = route.useNavigate();
  const show = (next: DeveloperTab, eventType?: string) =>
    navigate({ search: { tab: next, ...(eventType ? { event_type: eventType } : {}) }, replace: true });

  return (
    <>
      <PageHeader
        title="Developers"
        description={
          <>
            Keys, webhooks and the events your CRM sends. The full reference is in the{" "}
            <Anchor href="/docs">API docs</Anchor>.
          </>
        }
      />
      <Tabs
        value={tab}
        onChange={(value) => DEVELOPER_TABS.includes(value as DeveloperTab) && show(value as DeveloperTab)}
        keepMounted={false}
      >
        <TabsList mb="md" value={tab}>
          <Tabs.Tab value="keys">API keys</Tabs.Tab>
          <Tabs.Tab value="webhooks">Webhooks</Tabs.Tab>
          <Tabs.Tab value="samples">Event samples</Tabs.Tab>
          <Tabs.Tab value="mcp">MCP</Tabs.Tab>
        </TabsList>
        <Tabs.Panel value="keys">
          <ApiKeysPanel />
        </Tabs.Panel>
        <Tabs.Panel value="webhooks">
          <WebhooksPanel />
        </Tabs.Panel>
        <Tabs.Panel value="samples">
          <EventSamplesPanel selected={event_type} onSelect={(eventType) => show("samples", eventType)} />
        </Tabs.Panel>
        <Tabs.Panel value="mcp">
          <McpPanel />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
