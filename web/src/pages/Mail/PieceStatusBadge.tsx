import { Badge, type BadgeProps, type MantineColor } from "@mantine/core";
import { PIECE_STATUS, type PieceStatus, type PieceStatusTone } from "../../api/mail.ts";

/** A tone's colour: the darkest shades, so an outline badge's words keep AA contrast on a striped row. */
export const TONE_COLORS: Record<PieceStatusTone, MantineColor> = {
  progress: "blue.9",
  waiting: "gray.8",
  done: "teal.9",
  stopped: "red.9",
};

/** A piece's status in words, coloured by where it leaves the card. */
export function PieceStatusBadge({ status, size }: { status: PieceStatus; size?: BadgeProps["size"] }) {
  const { label, tone } = PIECE_STATUS[status];
  return (
    <Badge variant="outline" size={size} color={TONE_COLORS[tone]}>
      {label}
    </Badge>
  );
}
