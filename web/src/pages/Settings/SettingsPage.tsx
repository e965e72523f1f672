import { Tabs } from "@mantine/core";
import { useSuspenseQuery } from "@tanstack/react-query";
import { getRouteApi } from "@tanstack/react-router";
import { sessionQuery } from "../../api/session.ts";
import { OrgSafetyPanel } from "../../modules/mail-safety/OrgSafetyForm.tsx";
import { AccountForms } from "../../modules/settings/AccountForms.tsx";
import { ConnectionsPanel } from "../../modules/settings/ConnectionsPanel.tsx";
import { ProfileForm } from "../../modules/settings/ProfileForm.tsx";
import { TeamPanel } from "../../modules/settings/TeamPanel.tsx";
import { SETTINGS_TABS, type SettingsTab } from "../../routes/search.ts";
import { PageHeader } from "../../ui/states.tsx";
import { TabsList } from "../../ui/TabsList.tsx";

const route = getRouteApi("/signed-in/settings");

export function SettingsPage() {
  const { tab, hubspot } = route.useSearch();
  const navigate = route.useNavigate();
  const { data: session } = useSuspenseQuery(sessionQuery());
  const isOwner = session.role === "owner";

  return (
    <>
      <PageHeader
        title="Settings"
        description="Your business as your cards show it, your team, your CRM, and your own account."
      />
      <Tabs
        value={tab}
        onChange={(value) =>
          SETTINGS_TABS.includes(value as SettingsTab) &&
          navigate({ search: { tab: value as SettingsTab }, replace: true })
        }
        keepMounted={false}
      >
        <TabsList mb="md" value={tab}>
          <Tabs.Tab value="profile">Business profile</Tabs.Tab>
          <Tabs.Tab value="team">Team</Tabs.Tab>
          <Tabs.Tab value="safety">Mail safety</Tabs.Tab>
          <Tabs.Tab value="connections">Connections</Tabs.Tab>
          <Tabs.Tab value="account">Your account</Tabs.Tab>
        </TabsList>
        <Tabs.Panel value="profile">
          <ProfileForm canEdit={isOwner} />
        </Tabs.Panel>
        <Tabs.Panel value="team">
          <TeamPanel currentUserId={session.user.id} />
        </Tabs.Panel>
        <Tabs.Panel value="safety">
          <OrgSafetyPanel canEdit={isOwner} />
        </Tabs.Panel>
        <Tabs.Panel value="connections">
          <ConnectionsPanel
            outcome={hubspot}
            onOutcomeSeen={() => navigate({ search: { tab: "connections" }, replace: true })}
          />
        </Tabs.Panel>
        <Tabs.Panel value="account">
          <AccountForms session={session} />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
