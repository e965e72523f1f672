import { Paper, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { referenceAddressCoverageQuery } from "../../api/neighbours.ts";
import { LoadError } from "../../ui/states.tsx";

/** ZIPs named in full; past them, how many more. */
const ZIPS_NAMED = 12;

/** Where neighbour automations can find homes: the ZIPs whose addresses the operator loaded. */
export function NeighbourCoverage() {
  const coverage = useQuery(referenceAddressCoverageQuery());
  if (coverage.isPending) return null;
  if (coverage.isError) return <LoadError error={coverage.error} retry={() => coverage.refetch()} />;
  const { zips, total_homes } = coverage.data;
  return (
    <Paper withBorder p="lg" mt="lg" component="section" aria-labelledby="neighbour-coverage-heading">
      <Title order={2} size="h4" id="neighbour-coverage-heading" mb="xs">
        Neighbor addresses
      </Title>
      {zips.length === 0 ? (
        <Text size="sm">
          None are loaded yet, so neighbor automations find no homes. Ask Porchlight support to load the
          addresses of the area you serve.
        </Text>
      ) : (
        <Text size="sm">
          Neighbor automations can mail homes in {zips.length === 1 ? "1 ZIP" : `${zips.length} ZIPs`} (
          {total_homes.toLocaleString()} homes):{" "}
          {zips
            .slice(0, ZIPS_NAMED)
            .map((zip) =>
              [zip.zip, zip.city && `${zip.city}${zip.state ? `, ${zip.state}` : ""}`]
                .filter(Boolean)
                .join(" "),
            )
            .join("; ")}
          {zips.length > ZIPS_NAMED ? ` and ${zips.length - ZIPS_NAMED} more` : ""}. A job elsewhere finds no
          neighbors.
        </Text>
      )}
    </Paper>
  );
}
