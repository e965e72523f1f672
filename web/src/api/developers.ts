import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { type BodyOf, client, type ResponseOf, unwrap } from "./client.ts";

export type ApiKey = ResponseOf<"/app/api/v1/keys", "get">["keys"][number];
export type NewApiKey = BodyOf<"/app/api/v1/keys", "post">;
export type Scope = NonNullable<NewApiKey["scopes"]>[number];
export type Subscription = ResponseOf<"/app/api/v1/subscriptions", "get">["subscriptions"][number];

export const developerKeys = {
  all: ["developers"] as const,
  keys: () => [...developerKeys.all, "keys"] as const,
  subscriptions: () => [...developerKeys.all, "subscriptions"] as const,
  deliveries: (subscriptionId: string) => [...developerKeys.all, "deliveries", subscriptionId] as const,
};

export const apiKeysQuery = () =>
  queryOptions({ queryKey: developerKeys.keys(), queryFn: () => unwrap(client.GET("/app/api/v1/keys")) });

export const subscriptionsQuery = () =>
  queryOptions({
    queryKey: developerKeys.subscriptions(),
    queryFn: () => unwrap(client.GET("/app/api/v1/subscriptions")),
  });

export const deliveriesQuery = (id: string) =>
  queryOptions({
    queryKey: developerKeys.deliveries(id),
    queryFn: () =>
      unwrap(client.GET("/app/api/v1/subscriptions/{id}/deliveries", { params: { path: { id } } })),
  });

export function useCreateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NewApiKey) => unwrap(client.POST("/app/api/v1/keys", { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: developerKeys.keys() }),
  });
}

export function useRevokeApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => unwrap(client.DELETE("/app/api/v1/keys/{id}", { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: developerKeys.keys() }),
  });
}
