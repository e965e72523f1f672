import { queryOptions } from "@tanstack/react-query";
import { client, unwrap } from "./client.ts";

export const attentionKeys = { all: ["attention"] as const };

export const attentionQuery = () =>
  queryOptions({ queryKey: attentionKeys.all, queryFn: () => unwrap(client.GET("/app/api/v1/attention")) });
