import { queryOptions } from "@tanstack/react-query";
import { client, type ResponseOf, unwrap } from "./client.ts";

export const attentionKeys = { all: ["attention"] as const };

export const attentionQuery = () =>
  queryOptions({ queryKey: attentionKeys.all, queryFn: () => unwrap(client.GET("/app/api/v1/attention")) });

export type OverviewFigures = ResponseOf<"/app/api/v1/overview", "get">;
export type PeriodFigures = OverviewFigures["this_month"];

export const overviewQuery = () =>
  queryOptions({
    queryKey: ["overview"] as const,
    queryFn: () => unwrap(client.GET("/app/api/v1/overview")),
  });

export type FirstSteps = ResponseOf<"/app/api/v1/first-steps", "get">;

/** The first-run checklist: each step as the organization's data shows it. */
export const firstStepsQuery = () =>
  queryOptions({
    queryKey: ["first-steps"] as const,
    queryFn: () => unwrap(client.GET("/app/api/v1/first-steps")),
  });
