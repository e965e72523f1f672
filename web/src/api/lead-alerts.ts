import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { client, unwrap } from "./client.ts";

const leadAlertKeys = { all: ["lead-alerts"] as const };

/** The signed-in member's own choice: an email for every new landing-page lead. */
export const leadAlertsQuery = () =>
  queryOptions({
    queryKey: leadAlertKeys.all,
    queryFn: () => unwrap(client.GET("/app/api/v1/lead-alerts")),
  });

export function useSetLeadAlerts() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (enabled: boolean) => unwrap(client.PUT("/app/api/v1/lead-alerts", { body: { enabled } })),
    onSuccess: (answer) => queryClient.setQueryData(leadAlertKeys.all, answer),
  });
}
