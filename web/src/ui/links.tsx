import {
  Anchor,
  type AnchorProps,
  Button,
  type ButtonProps,
  NavLink,
  type NavLinkProps,
} from "@mantine/core";
import { createLink } from "@tanstack/react-router";
import type { AnchorHTMLAttributes, Ref } from "react";

/** Mantine's anchor, button and nav link as router links, so every `to`, `params` and `search` is typed. */
type AnchorElementProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "color" | "style"> & {
  ref?: Ref<HTMLAnchorElement>;
};

function MantineAnchor(props: AnchorProps & AnchorElementProps) {
  return <Anchor component="a" {...props} />;
}
function MantineButton(props: ButtonProps & AnchorElementProps) {
  return <Button component="a" {...props} />;
}
function MantineNavLink(props: NavLinkProps & AnchorElementProps) {
  return <NavLink component="a" {...props} />;
}

export const AnchorLink = createLink(MantineAnchor);
export const ButtonLink = createLink(MantineButton);
export const NavLinkLink = createLink(MantineNavLink);
