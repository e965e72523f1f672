import { queryOptions } from "@tanstack/react-query";
import { client, type ResponseOf, unwrap } from "./client.ts";

export type SourceJobRevenue = ResponseOf<"/app/api/v1/revenue/by-source-job", "get">;
export type MapConfig = ResponseOf<"/app/api/v1/map-config", "get">;
export type NeighbourPreview = NonNullable<
  ResponseOf<"/app/api/v1/automations/dry-run", "post">["neighbours"]
>;

export const sourceJobRevenueQuery = () =>
  queryOptions({
    queryKey: ["revenue", "by-source-job"] as const,
    queryFn: () => unwrap(client.GET("/app/api/v1/revenue/by-source-job")),
  });

/** How maps are drawn: the deployment's tile URL, or null for the offline drawing. */
export const mapConfigQuery = () =>
  queryOptions({
    queryKey: ["map-config"] as const,
    queryFn: () => unwrap(client.GET("/app/api/v1/map-config")),
    staleTime: Number.POSITIVE_INFINITY,
  });

export type ReferenceAddressCoverage = ResponseOf<"/app/api/v1/reference-addresses/coverage", "get">;

/** Which ZIPs have neighbour addresses loaded (deployment-wide; the operator loads them). */
export const referenceAddressCoverageQuery = () =>
  queryOptions({
    queryKey: ["reference-addresses", "coverage"] as const,
    queryFn: () => unwrap(client.GET("/app/api/v1/reference-addresses/coverage")),
  });
