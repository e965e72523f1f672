import "leaflet/dist/leaflet.css";
import L from "leaflet";
import { useEffect, useRef } from "react";
import type { MapPoints } from "./NeighbourMap.tsx";

/** The neighbour map on the deployment's raster tiles (Leaflet), the job and the chosen homes as markers. */
export default function TiledNeighbourMap({
  points,
  tileUrl,
  attribution,
  label,
}: {
  points: MapPoints;
  tileUrl: string;
  attribution: string | null;
  label: string;
}) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!container.current) return;
    const map = L.map(container.current, { scrollWheelZoom: false });
    L.tileLayer(tileUrl, { maxZoom: 19, ...(attribution ? { attribution } : {}) }).addTo(map);
    const centre = L.latLng(points.job.latitude, points.job.longitude);
    const circle = L.circle(centre, {
      radius: points.radius_m,
      fill: false,
      dashArray: "6 4",
      weight: 1,
    }).addTo(map);
    for (const home of points.homes) {
      L.circleMarker([home.latitude, home.longitude], { radius: 4, color: "#1c7ed6", fillOpacity: 0.9 })
        .bindTooltip(`${home.address} · ${home.distance_m} m`)
        .addTo(map);
    }
    L.circleMarker(centre, { radius: 6, color: "#c92a2a", fillOpacity: 1 }).bindTooltip("The job").addTo(map);
    map.fitBounds(circle.getBounds());
    return () => {
      map.remove();
    };
  }, [points, tileUrl, attribution]);
  return (
    <div
      ref={container}
      role="img"
      aria-label={label}
      style={{ height: 320, width: "100%", maxWidth: 560 }}
    />
  );
}
