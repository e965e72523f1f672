import { Fieldset, Switch, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useQuery } from "@tanstack/react-query";
import { leadAlertsQuery, useSetLeadAlerts } from "../../api/lead-alerts.ts";
import { LoadError, Loading } from "../../ui/states.tsx";

/** The signed-in member's own lead alert: each member chooses for themselves. */
export function LeadAlertsSwitch() {
  const alerts = useQuery(leadAlertsQuery());
  const setAlerts = useSetLeadAlerts();
  return (
    <Fieldset legend="Lead alerts">
      {alerts.isPending ? (
        <Loading label="Loading your lead alert setting" />
      ) : alerts.isError ? (
        <LoadError error={alerts.error} retry={() => alerts.refetch()} />
      ) : (
        <>
          <Switch
            label="Email me about every new lead"
            description="A lead arrives when someone fills in the form on a postcard's landing page."
            checked={alerts.data.enabled}
            disabled={setAlerts.isPending}
            onChange={async (event) => {
              const enabled = event.currentTarget.checked;
              try {
                await setAlerts.mutateAsync(enabled);
                notifications.show({
                  color: "green",
                  title: "Saved",
                  message: enabled ? "Lead alerts are on." : "Lead alerts are off.",
                });
              } catch {
                notifications.show({ color: "red", title: "Not saved", message: "Try again in a moment." });
              }
            }}
          />
          {setAlerts.isError && (
            <Text size="sm" c="red" mt="xs" role="alert">
              Your lead alert setting could not be saved.
            </Text>
          )}
        </>
      )}
    </Fieldset>
  );
}
