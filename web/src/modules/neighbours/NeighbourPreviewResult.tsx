import { Alert, List, Stack, Text } from "@mantine/core";
import type { DryRunAnswer } from "../../api/automations.ts";
import type { NeighbourPreview } from "../../api/neighbours.ts";
import { distance } from "../../ui/format.ts";
import { SampleSafetyLines } from "../mail-safety/SampleSafety.tsx";
import { NeighbourMap } from "./NeighbourMap.tsx";

const EXCLUSIONS: { key: keyof NeighbourPreview["excluded"]; label: string }[] = [
  { key: "own_home", label: "the job's own home" },
  { key: "customers", label: "your customers" },
  { key: "opted_out", label: "opted out of your mail" },
  { key: "recently_mailed", label: "mailed within your frequency window" },
];

const homes = (count: number) => `${count.toLocaleString()} ${count === 1 ? "home" : "homes"}`;

/** Whether neighbour addresses are loaded in the job's ZIP: the first thing to check when none are found. */
function AreaCoverageLine({ area }: { area: DryRunAnswer["area"] }) {
  if (!area) return null;
  return (
    <Text size="sm">
      {area.homes_loaded > 0
        ? `Neighbor addresses are loaded for ZIP ${area.zip} (${homes(area.homes_loaded)}).`
        : `No neighbor addresses are loaded for ZIP ${area.zip}: ask Porchlight support to load the county's addresses.`}
    </Text>
  );
}

/** Whether a dry run's answer is about neighbours: their preview, or a job's home that cannot be located. */
export const isAboutNeighbours = (result: DryRunAnswer) =>
  Boolean(result.neighbours) || (result.outcome === "no_address" && Boolean(result.address));

/**
 * A neighbour automation's test on a sample: the homes that would be mailed, those left out and
 * why, and a map; or why the job's home has no neighbours to find.
 */
export function NeighbourPreviewResult({ result }: { result: DryRunAnswer }) {
  const preview = result.neighbours;
  if (!preview) {
    if (!isAboutNeighbours(result)) return null;
    return (
      <Alert color="yellow" title="No card: the job's home is not on the map" role="status">
        <Text size="sm">
          {result.address} is not among the reference addresses, so there are no neighbors to find around it.
          Load your county's addresses (docs: neighbor mail) or check how the CRM writes the address.
        </Text>
        <AreaCoverageLine area={result.area} />
        <Text size="xs" mt={4}>
          This was a test: nothing was mailed or saved.
        </Text>
      </Alert>
    );
  }
  const excluded = EXCLUSIONS.filter(({ key }) => preview.excluded[key] > 0);
  const mailed = preview.homes_mailed;
  return (
    <Alert
      color={mailed > 0 ? "green" : "yellow"}
      title={mailed > 0 ? `${homes(mailed)} would be mailed` : "No card: no home to mail"}
      role="status"
    >
      <Stack gap="xs">
        <Text size="sm">
          {mailed > 0
            ? `The ${homes(mailed)} nearest the job${preview.job.street ? ` on ${preview.job.street}` : ""}, within ${distance(preview.radius_m)} (you asked for up to ${preview.count}).`
            : `Why: ${preview.reason ?? "no home could be chosen"}.`}
        </Text>
        <AreaCoverageLine area={result.area} />
        {mailed > 0 && result.mail_safety && <SampleSafetyLines safety={result.mail_safety} />}
        {excluded.length > 0 && (
          <div>
            <Text size="sm">Left out:</Text>
            <List size="sm" spacing={2}>
              {excluded.map(({ key, label }) => (
                <List.Item key={key}>
                  {homes(preview.excluded[key])}: {label}
                </List.Item>
              ))}
            </List>
          </div>
        )}
        {result.merge_preview && (
          <Text size="sm">Headline on the cards: “{result.merge_preview.headline}”</Text>
        )}
        <NeighbourMap points={preview} />
        <Text size="xs">This was a test: nothing was mailed or saved.</Text>
      </Stack>
    </Alert>
  );
}
