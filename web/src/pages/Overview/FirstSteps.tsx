import { List, Paper, Text, ThemeIcon, Title, VisuallyHidden } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { type FirstSteps, firstStepsQuery } from "../../api/overview.ts";
import { AnchorLink } from "../../ui/links.tsx";

/** The steps in the order a new contractor takes them; each is ticked from real data (GET /first-steps). */
const STEPS: { key: keyof FirstSteps; title: string; link: ReactNode; hint: string }[] = [
  {
    key: "business_profile",
    title: "Set up your business",
    hint: "Your business name and return address, printed on every card.",
    link: (
      <AnchorLink to="/settings" search={{ tab: "profile" }}>
        Open Settings
      </AnchorLink>
    ),
  },
  {
    key: "automation",
    title: "Create an automation",
    hint: "Which CRM event mails a postcard, and what the card says.",
    link: <AnchorLink to="/automations/new">Create an automation</AnchorLink>,
  },
  {
    key: "api_key",
    title: "Connect your CRM: get an API key",
    hint: "Your CRM, Zapier flow or developer sends events with it.",
    link: (
      <AnchorLink to="/developers" search={{ tab: "keys" }}>
        Get an API key
      </AnchorLink>
    ),
  },
  {
    key: "event",
    title: "Send a test event",
    hint: "One job or deal from your CRM, to see the card it mails.",
    link: (
      <>
        <AnchorLink to="/developers" search={{ tab: "samples" }}>
          See how to send one
        </AnchorLink>
        . No CRM yet? Open one of your <AnchorLink to="/automations">automations</AnchorLink> and send
        yourself a test card.
      </>
    ),
  },
];

/** A checklist on the Overview until every first step is done; then it steps aside. */
export function FirstStepsChecklist() {
  const steps = useQuery(firstStepsQuery());
  if (!steps.isSuccess) return null;
  const done = STEPS.filter((step) => steps.data[step.key]).length;
  if (done === STEPS.length) return null;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="first-steps-heading">
      <Title order={2} size="h3" id="first-steps-heading">
        Get started
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {done} of {STEPS.length} done. Each step is ticked as soon as Porchlight sees it done.
      </Text>
      <List spacing="sm" listStyleType="none" aria-label="First steps">
        {STEPS.map((step) => {
          const isDone = steps.data[step.key];
          return (
            <List.Item
              key={step.key}
              icon={
                <ThemeIcon
                  size={24}
                  radius="xl"
                  color={isDone ? "teal.9" : "gray.2"}
                  c={isDone ? "white" : "gray.8"}
                  aria-hidden
                >
                  {isDone ? "✓" : ""}
                </ThemeIcon>
              }
            >
              <Text fw={600} td={isDone ? "line-through" : undefined}>
                <VisuallyHidden>{isDone ? "Done: " : "To do: "}</VisuallyHidden>
                {step.title}
              </Text>
              {!isDone && (
                <Text size="sm">
                  {step.hint} {step.link}
                </Text>
              )}
            </List.Item>
          );
        })}
      </List>
    </Paper>
  );
}
