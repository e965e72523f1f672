import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";
import { type BodyOf, client, type ResponseOf, unwrap } from "./client.ts";

export type ApiKey = ResponseOf<"/app/api/v1/keys", "get">["keys"][number];
export type NewApiKey = BodyOf<"/app/api/v1/keys", "post">;
export type Scope = NonNullable<NewApiKey["scopes"]>[number];
export type Subscription = ResponseOf<"/app/api/v1/subscriptions", "get">["subscriptions"][number];
export type Delivery = Subscription["recent_deliveries"][number];
export type SubscriptionWithSecret = ResponseOf<"/app/api/v1/subscriptions", "post">;

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
    // While a test delivery waits for a worker, look again until its result is in.
    refetchInterval: (query) =>
      query.state.data?.subscriptions.some((subscription) => subscription.test_pending) ? 1000 : false,
  });

export const deliveriesQuery = (id: string) =>
  queryOptions({
    queryKey: developerKeys.deliveries(id),
    queryFn: () =>
      unwrap(client.GET("/app/api/v1/subscriptions/{id}/deliveries", { params: { path: { id } } })),
  });

/** Created from a dialog that shows its failure itself (on a field, or in the dialog): no toast repeats it. */
export function useCreateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    meta: { quiet: true },
    mutationFn: (body: NewApiKey) => unwrap(client.POST("/app/api/v1/keys", { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: developerKeys.keys() }),
  });
}

/** Revoked from a dialog that shows its failure itself: no toast repeats it. */
export function useRevokeApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    meta: { quiet: true },
    mutationFn: (id: string) => unwrap(client.DELETE("/app/api/v1/keys/{id}", { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: developerKeys.keys() }),
  });
}

/**
 * Every webhook mutation changes the list (and a subscription's delivery log). Each screen shows
 * its failure beside what failed (the URL field, the dialog), so no toast repeats it.
 */
function useWebhookMutation<Input, Output>(mutationFn: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    meta: { quiet: true },
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: developerKeys.subscriptions() }),
        queryClient.invalidateQueries({ queryKey: [...developerKeys.all, "deliveries"] }),
      ]),
  });
}

export const useCreateSubscription = () =>
  useWebhookMutation((target_url: string) =>
    unwrap(client.POST("/app/api/v1/subscriptions", { body: { target_url } })),
  );

export const useTestSubscription = () =>
  useWebhookMutation((id: string) =>
    unwrap(client.POST("/app/api/v1/subscriptions/{id}/test", { params: { path: { id } } })),
  );

export const useRotateSubscriptionSecret = () =>
  useWebhookMutation((id: string) =>
    unwrap(client.POST("/app/api/v1/subscriptions/{id}/rotate-secret", { params: { path: { id } } })),
  );

export const useDeleteSubscription = () =>
  useWebhookMutation((id: string) =>
    unwrap(client.DELETE("/app/api/v1/subscriptions/{id}", { params: { path: { id } } })),
  );
