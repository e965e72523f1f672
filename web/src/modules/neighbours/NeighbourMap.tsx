import { Box, Group, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { lazy, Suspense } from "react";
import { mapConfigQuery, type NeighbourPreview } from "../../api/neighbours.ts";
import { distance, feetFromMeters } from "../../ui/format.ts";

export type MapPoints = Pick<NeighbourPreview, "job" | "homes" | "radius_m">;

// Leaflet (and its stylesheet) loads only when the deployment names a tile server.
const TiledNeighbourMap = lazy(() => import("./TiledNeighbourMap.tsx"));

const METRES_PER_DEGREE = 111_320;
const JOB_COLOR = "var(--mantine-color-red-7)";
const HOME_COLOR = "var(--mantine-color-blue-7)";

/**
 * The job and the homes that would be mailed: on map tiles when MAP_TILE_URL is set, else a plain
 * drawing of the points (no network, so it works offline and in tests).
 */
export function NeighbourMap({ points }: { points: MapPoints }) {
  const config = useQuery(mapConfigQuery());
  const label = `Map of the job and the ${points.homes.length} homes that would be mailed, within ${distance(points.radius_m)}`;
  return (
    <Box>
      {config.data?.tile_url ? (
        <Suspense fallback={<PointDrawing points={points} label={label} />}>
          <TiledNeighbourMap
            points={points}
            tileUrl={config.data.tile_url}
            attribution={config.data.attribution}
            label={label}
          />
        </Suspense>
      ) : (
        <PointDrawing points={points} label={label} />
      )}
      <Group gap="md" mt={4}>
        <Legend color={JOB_COLOR} square text="The job" />
        <Legend color={HOME_COLOR} text="A home that would be mailed" />
        <Text size="xs" c="dimmed">
          {drawingExtent(points) >= points.radius_m
            ? `Dashed circle: ${distance(points.radius_m)}`
            : `Zoomed to the homes: the ${distance(points.radius_m)} circle reaches beyond the drawing`}
        </Text>
      </Group>
    </Box>
  );
}

function Legend({ color, text, square }: { color: string; text: string; square?: boolean }) {
  return (
    <Group gap={4} wrap="nowrap">
      <svg width="10" height="10" aria-hidden="true">
        {square ? <rect width="10" height="10" fill={color} /> : <circle cx="5" cy="5" r="4" fill={color} />}
      </svg>
      <Text size="xs">{text}</Text>
    </Group>
  );
}

/** Metres east and south of the job (a flat projection: fine within a few kilometres). */
function offsetOf(job: MapPoints["job"], point: { latitude: number; longitude: number }) {
  const east =
    (point.longitude - job.longitude) * METRES_PER_DEGREE * Math.cos((job.latitude * Math.PI) / 180);
  const south = (job.latitude - point.latitude) * METRES_PER_DEGREE;
  return { x: east, y: south };
}

/** A scale bar of a round number of feet, about a quarter of the drawing's width (`extent` in meters). */
function scaleBar(extent: number): { meters: number; label: string } {
  const target = feetFromMeters(extent, false) / 2;
  const magnitude = 10 ** Math.floor(Math.log10(target));
  const feet = [5, 2, 1].map((step) => step * magnitude).find((length) => length <= target) ?? magnitude;
  return { meters: feet / feetFromMeters(1, false), label: `${feet.toLocaleString("en-US")} ft` };
}

/**
 * Half the drawing's width in metres: the search circle, or closer in when the chosen homes are
 * all near the job (20 homes on a dense street sit well inside a 400 m circle).
 */
function drawingExtent(points: MapPoints): number {
  const farthest = Math.max(0, ...points.homes.map((home) => home.distance_m));
  return Math.min(points.radius_m * 1.12, Math.max(farthest * 1.3, 60));
}

function PointDrawing({ points, label }: { points: MapPoints; label: string }) {
  const radius = points.radius_m;
  const extent = drawingExtent(points);
  const pad = extent * 0.1;
  const dot = extent / 55;
  const scale = scaleBar(extent);
  return (
    <svg
      viewBox={`${-extent} ${-extent} ${extent * 2} ${extent * 2}`}
      role="img"
      aria-label={label}
      style={{
        width: "100%",
        maxWidth: 420,
        display: "block",
        background: "var(--mantine-color-gray-0)",
        border: "1px solid var(--mantine-color-gray-3)",
        borderRadius: 4,
      }}
    >
      <circle
        r={radius}
        fill="none"
        stroke="var(--mantine-color-gray-6)"
        strokeWidth={extent / 200}
        strokeDasharray={`${extent / 40} ${extent / 60}`}
      />
      {points.homes.map((home) => {
        const { x, y } = offsetOf(points.job, home);
        return (
          <circle key={`${home.latitude},${home.longitude}`} cx={x} cy={y} r={dot} fill={HOME_COLOR}>
            <title>{`${home.address} · ${distance(home.distance_m)}`}</title>
          </circle>
        );
      })}
      <rect x={-dot * 1.6} y={-dot * 1.6} width={dot * 3.2} height={dot * 3.2} fill={JOB_COLOR}>
        <title>{`The job${points.job.street ? ` on ${points.job.street}` : ""}`}</title>
      </rect>
      <g transform={`translate(${-extent + pad / 2} ${extent - pad / 2})`}>
        <line
          x1={0}
          x2={scale.meters}
          y1={0}
          y2={0}
          stroke="var(--mantine-color-dark-6)"
          strokeWidth={extent / 150}
        />
        <text x={0} y={-extent / 40} fontSize={extent / 14} fill="var(--mantine-color-dark-6)">
          {scale.label}
        </text>
      </g>
    </svg>
  );
}
