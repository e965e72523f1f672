import { Alert } from "@mantine/core";
import type { Automation } from "../../../api/automations.ts";
import { count } from "../../../ui/format.ts";

/**
 * What turning an automation off does to mail already on its way, said before the save: its
 * follow-ups still to go stop for good; cards waiting on hold, for approval or under a cap stay.
 */
export function TurningOff({ automation }: { automation: Automation }) {
  const { scheduled, waiting } = automation.follow_up_cards;
  const followUps = scheduled + waiting;
  const firstCardsWaiting = Math.max(0, automation.cards_waiting - waiting);
  if (followUps === 0 && firstCardsWaiting === 0) return null;
  return (
    <Alert color="yellow" title="Turning this automation off">
      {followUps > 0 &&
        `Saving stops its ${count(followUps, "follow-up card")} still to go; turning it on again does not bring them back. `}
      {firstCardsWaiting > 0 &&
        `${count(firstCardsWaiting, "card")} already waiting (on hold, for your approval or under a monthly cap) stay in Mail: cancel them there if they should not go.`}
    </Alert>
  );
}
