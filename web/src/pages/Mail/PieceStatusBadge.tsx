import { Badge, type BadgeProps, type MantineColor } from "@mantine/core";
import { PIECE_STATUS, type PieceStatus, type PieceStatusTone } from "../../api/mail.ts";

/** A tone's colour (a palette: an alert takes its light variant, a badge its darkest shade). */
export const TONE_COLORS: Record<PieceStatusTone, MantineColor> = {
  progress: "blue",
  waiting: "grape",
  done: "teal",
  stopped: "red",
  compared: "gray",
};

/** A piece's status in words, coloured by where it leaves the card (shade 9 keeps its outline words at AA on a striped row). */
export function PieceStatusBadge({ status, size }: { status: PieceStatus; size?: BadgeProps["size"] }) {
  const { label, tone } = PIECE_STATUS[status];
  return (
    <Badge variant="outline" size={size} color={`${TONE_COLORS[tone]}.9`}>
      {label}
    </Badge>
  );
}
