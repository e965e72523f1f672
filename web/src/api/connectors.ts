import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { client, type ResponseOf, unwrap } from "./client.ts";

export type HubSpotStatus = ResponseOf<"/app/api/v1/connectors/hubspot", "get">;
export type HubSpotConnection = NonNullable<HubSpotStatus["connection"]>;

export const connectorKeys = {
  all: ["connectors"] as const,
  hubspot: () => [...connectorKeys.all, "hubspot"] as const,
};

export const hubspotQuery = () =>
  queryOptions({
    queryKey: connectorKeys.hubspot(),
    queryFn: () => unwrap(client.GET("/app/api/v1/connectors/hubspot")),
  });

/** Each screen shows a connection failure beside the button that failed, so no toast repeats it. */
function useConnectorMutation<Input, Output>(mutationFn: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    meta: { quiet: true },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: connectorKeys.all }),
  });
}

/** Starts the connect; the caller sends the browser to the answer's authorize_url. */
export const useConnectHubSpot = () =>
  useMutation({
    mutationFn: () => unwrap(client.POST("/app/api/v1/connectors/hubspot/connect")),
    meta: { quiet: true },
  });

export const useSetWonStages = () =>
  useConnectorMutation((won_stages: string[]) =>
    unwrap(client.PUT("/app/api/v1/connectors/hubspot/won-stages", { body: { won_stages } })),
  );

export const useDisconnectHubSpot = () =>
  useConnectorMutation(() => unwrap(client.DELETE("/app/api/v1/connectors/hubspot")));
