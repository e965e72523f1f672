import { queryOptions } from "@tanstack/react-query";
import { client, type ResponseOf, unwrap } from "./client.ts";

export type Revenue = ResponseOf<"/app/api/v1/revenue", "get">;
export type SpendFigures = Revenue["by_automation"][number];
export type Conversion = Revenue["conversions"][number];

/** Every attributed conversion as a CSV attachment (a plain link: the browser downloads it with the cookie). */
export const CONVERSIONS_CSV_URL = "/app/api/v1/revenue/conversions.csv";

export const revenueQuery = () =>
  queryOptions({
    queryKey: ["revenue"] as const,
    queryFn: () => unwrap(client.GET("/app/api/v1/revenue")),
  });
