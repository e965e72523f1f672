import {
  Alert,
  Button,
  ColorInput,
  type ColorInputProps,
  Fieldset,
  FileInput,
  Group,
  Image,
  NumberInput,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from "@mantine/core";
import { isNotEmpty, useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useSuspenseQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { ApiError, errorMessage } from "../../api/errors.ts";
import {
  LOGO_MAX_BYTES,
  LOGO_TYPES,
  LOGO_URL,
  type Organization,
  organizationQuery,
  useRemoveLogo,
  useUpdateOrganization,
  useUploadLogo,
} from "../../api/organization.ts";
import { ConfirmDialog } from "../../ui/ConfirmDialog.tsx";
import { focusFirstInvalid, refocusAfterBusy, useFocusWhenGone } from "../../ui/focus.ts";
import { dollarsProblem } from "../../ui/number-rules.ts";
import "./read-only-profile.css";

/**
 * Names for the colour picker's two sliders (a mouse's way to a colour; the field takes one typed).
 * ColorInput passes `attributes` on to its picker, but not `saturationLabel`, and the saturation
 * slider lays that (undefined) over an aria-label given here: its name is its title.
 */
const COLOR_PICKER_NAMES = {
  saturation: { title: "Brand color: saturation and brightness" },
  slider: { "aria-label": "Brand color: hue" },
} as unknown as ColorInputProps["attributes"];

type ProfileValues = {
  business_name: string;
  phone: string;
  website: string;
  street: string;
  city: string;
  state: string;
  postal_code: string;
  brand_color: string;
  offer: string;
  cost_per_card: number | string;
};

function valuesOf(org: Organization): ProfileValues {
  return {
    business_name: org.business_name ?? org.name,
    phone: org.phone ?? "",
    website: org.website ?? "",
    street: org.return_address?.street ?? "",
    city: org.return_address?.city ?? "",
    state: org.return_address?.state ?? "",
    postal_code: org.return_address?.postal_code ?? "",
    brand_color: org.brand_color ?? "",
    offer: org.offer ?? "",
    cost_per_card: org.cost_per_card_cents == null ? "" : org.cost_per_card_cents / 100,
  };
}

/** The server's highest cost per card (src/app-api/routes/organization.ts): $1,000.00. */
const COST_PER_CARD_MAX_CENTS = 100_000;

const ADDRESS_FIELDS = ["street", "city", "state", "postal_code"] as const;

/** The return address as typed; null (cleared) when every part is empty. */
function returnAddressOf(values: ProfileValues) {
  const address = {
    street: values.street.trim(),
    city: values.city.trim(),
    state: values.state.trim(),
    postal_code: values.postal_code.trim(),
  };
  return Object.values(address).some(Boolean) ? address : null;
}

/** Server field names (return_address.city, cost_per_card_cents) as the form names them. */
const formField = (field: string) =>
  field.replace(/^return_address\./, "").replace(/^cost_per_card_cents$/, "cost_per_card");

/** The business as every card and landing page shows it. */
export function ProfileForm({ canEdit }: { canEdit: boolean }) {
  const { data: org } = useSuspenseQuery(organizationQuery());
  const update = useUpdateOrganization();
  const formRef = useRef<HTMLFormElement>(null);
  const saveButton = useRef<HTMLButtonElement>(null);
  const form = useForm<ProfileValues>({
    initialValues: valuesOf(org),
    validate: {
      business_name: isNotEmpty("Enter the business name printed on your cards"),
      // The server's rule for a phone number (src/app-api/routes/organization.ts), said in words.
      phone: (value) =>
        /^[0-9+().\- ]*$/.test(value.trim())
          ? null
          : "Use digits, spaces and + ( ) . - only, e.g. (217) 555-0100",
      cost_per_card: (value) => dollarsProblem(value, { maxCents: COST_PER_CARD_MAX_CENTS, optional: true }),
      brand_color: (value) => (value && !/^#[0-9a-fA-F]{6}$/.test(value) ? "Use a color like #1f6feb" : null),
    },
  });

  return (
    <form
      ref={formRef}
      noValidate
      onSubmit={form.onSubmit(async (values) => {
        // Sent only when edited: an address saved before the server's checks does not block a new phone number.
        const addressEdited = ADDRESS_FIELDS.some((field) => form.isDirty(field));
        try {
          const saved = await update.mutateAsync({
            business_name: values.business_name.trim(),
            phone: values.phone.trim() || null,
            website: values.website.trim() || null,
            return_address: addressEdited ? returnAddressOf(values) : undefined,
            brand_color: values.brand_color || null,
            offer: values.offer.trim() || null,
            cost_per_card_cents:
              values.cost_per_card === "" ? null : Math.round(Number(values.cost_per_card) * 100),
          });
          form.setInitialValues(valuesOf(saved));
          form.resetDirty(valuesOf(saved));
          notifications.show({ color: "green", title: "Saved", message: "Your business profile is saved." });
          // Save profile, disabled while it spun, lets the focus fall to the page: it gets it back.
          refocusAfterBusy(() => saveButton.current);
        } catch (error) {
          const fields = error instanceof ApiError ? Object.entries(error.fieldErrors()) : [];
          if (fields.length > 0) {
            form.setErrors(Object.fromEntries(fields.map(([field, message]) => [formField(field), message])));
            focusFirstInvalid(formRef.current);
          } else {
            notifications.show({ color: "red", title: "That did not work", message: errorMessage(error) });
            refocusAfterBusy(() => saveButton.current);
          }
        }
      })}
    >
      <Stack gap="lg" className={canEdit ? undefined : "pl-read-only-profile"}>
        {!canEdit && (
          <Alert title="Only owners change the profile">You can see it; ask an owner to change it.</Alert>
        )}
        <Fieldset legend="Business" disabled={!canEdit}>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label="Business name" required {...form.getInputProps("business_name")} />
            <TextInput
              label="Phone"
              type="tel"
              autoComplete="tel"
              description="Printed on every card and on its landing page's call button; a card's text can name it too (Business phone, among the builder's merge fields)"
              {...form.getInputProps("phone")}
            />
            <TextInput
              label="Website"
              type="url"
              placeholder="https://"
              description="Printed where a card's text names it (Business website, among the builder's merge fields)"
              {...form.getInputProps("website")}
            />
            <ColorInput
              label="Brand color"
              format="hex"
              placeholder="e.g. #1f6feb"
              eyeDropperButtonProps={{ "aria-label": "Pick the color from the screen" }}
              attributes={COLOR_PICKER_NAMES}
              {...form.getInputProps("brand_color")}
              // Mantine's default put back the last valid colour (none) on leaving the field: "blue-ish"
              // vanished without a word. Kept, it is refused on the field as it is left.
              fixOnBlur={false}
              onBlur={(event) => {
                form.getInputProps("brand_color").onBlur?.(event);
                form.validateField("brand_color");
              }}
            />
          </SimpleGrid>
        </Fieldset>
        <Fieldset legend="Return address (printed on the card back)" disabled={!canEdit}>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label="Street" autoComplete="address-line1" {...form.getInputProps("street")} />
            <TextInput label="City" autoComplete="address-level2" {...form.getInputProps("city")} />
            <TextInput label="State" autoComplete="address-level1" {...form.getInputProps("state")} />
            <TextInput label="ZIP code" autoComplete="postal-code" {...form.getInputProps("postal_code")} />
          </SimpleGrid>
        </Fieldset>
        <Fieldset legend="Offer and cost" disabled={!canEdit}>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput
              label="Offer"
              description="Your default offer line, e.g. Free gutter check with any roof repair. Leave empty to promise nothing."
              {...form.getInputProps("offer")}
            />
            <NumberInput
              label="Cost per card (USD)"
              description="What one mailed card costs you, for Revenue's return. A new price counts from the next card mailed; cards already mailed keep theirs."
              min={0}
              clampBehavior="none"
              decimalScale={2}
              prefix="$"
              {...form.getInputProps("cost_per_card")}
            />
          </SimpleGrid>
        </Fieldset>
        {canEdit && (
          <Group>
            <Button ref={saveButton} type="submit" loading={update.isPending}>
              Save profile
            </Button>
          </Group>
        )}
        <LogoUpload hasLogo={org.has_logo} canEdit={canEdit} />
      </Stack>
    </form>
  );
}

/** Why a chosen file cannot be a logo, before it is sent; null when it may go up. */
function logoFileProblem(file: File): string | null {
  if (!LOGO_TYPES.includes(file.type)) return "Choose a PNG, JPEG or SVG file.";
  if (file.size > LOGO_MAX_BYTES) {
    const megabytes = (file.size / (1024 * 1024)).toFixed(1);
    return `This file is ${megabytes} MB; a logo can be at most 2 MB. Export a smaller one.`;
  }
  return null;
}

/**
 * What the last upload or removal of the logo did, in a line under the upload's button rather than
 * in a toast: the toast stood over Upload logo and the file field (bottom right on a wide screen,
 * where the button is; a contractor's walk). The live region is always there, so a screen reader
 * reads each new message; it stays until another file is chosen. The page scrolls it into sight.
 */
function LogoStatus({ said }: { said: string | null }) {
  const line = useRef<HTMLDivElement>(null);
  // Said under a button at the window's foot, it would be out of sight: the page scrolls it in, no further.
  useEffect(() => {
    if (said) line.current?.scrollIntoView({ block: "nearest" });
  }, [said]);
  return (
    <div role="status" ref={line} style={{ scrollMarginBottom: "var(--mantine-spacing-lg)" }}>
      {said && (
        <Paper
          withBorder
          radius="sm"
          mt="sm"
          px="sm"
          py={6}
          style={{ borderLeft: "4px solid var(--mantine-color-teal-7)" }}
        >
          <Text size="sm">{said}</Text>
        </Paper>
      )}
    </div>
  );
}

function LogoUpload({ hasLogo, canEdit }: { hasLogo: boolean; canEdit: boolean }) {
  const upload = useUploadLogo();
  // Upload logo is disabled once done (no file chosen) or refused (the file's problem shown): the
  // focus it dropped goes to the file field, which says which.
  const fileField = useRef<HTMLButtonElement>(null);
  // Removed, the logo takes its Remove button (and the dialog that asked) with it: the focus goes
  // to the file field, for another logo.
  useFocusWhenGone(fileField, hasLogo);
  const [file, setFile] = useState<File | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [said, setSaid] = useState<string | null>(null);
  return (
    <Fieldset legend="Logo" disabled={!canEdit}>
      <Stack>
        {hasLogo ? (
          <Group gap="md" align="center">
            <Image src={`${LOGO_URL}?v=${version}`} alt="Your current logo" h={64} w="auto" fit="contain" />
            {canEdit && (
              <RemoveLogo onRemoved={() => setSaid("Logo removed: your cards go without it from now on.")} />
            )}
          </Group>
        ) : (
          <Text size="sm">No logo yet. It is printed on the card back and shown on your landing page.</Text>
        )}
        {/* One child of the stack: the status line, empty until something is done, adds no gap. */}
        <div>
          <Group align="flex-end">
            <FileInput
              ref={fileField}
              label="Logo file"
              description="PNG, JPEG or SVG, up to 2 MB"
              accept={LOGO_TYPES.join(",")}
              placeholder="Choose an image"
              value={file}
              onChange={(chosen) => {
                setFile(chosen);
                setProblem(chosen ? logoFileProblem(chosen) : null);
                setSaid(null);
              }}
              error={problem}
              clearable
              clearButtonProps={{ "aria-label": "Remove the chosen file" }}
              style={{ flex: "1 1 220px" }}
            />
            <Button
              variant="default"
              disabled={!file || problem !== null}
              loading={upload.isPending}
              onClick={async () => {
                if (!file) return;
                await upload.mutateAsync(file).then(
                  () => {
                    setFile(null);
                    setVersion((v) => v + 1);
                    setSaid("Logo uploaded: your cards use it from now on.");
                  },
                  (error: unknown) => {
                    setProblem(errorMessage(error));
                    setSaid(null);
                  },
                );
                refocusAfterBusy(() => fileField.current);
              }}
            >
              Upload logo
            </Button>
          </Group>
          <LogoStatus said={said} />
        </div>
      </Stack>
    </Fieldset>
  );
}

/**
 * Remove logo, after asking: cards not yet printed and the landing pages go without it. Done, the
 * upload's status line says so (`onRemoved`).
 */
function RemoveLogo({ onRemoved }: { onRemoved: () => void }) {
  const remove = useRemoveLogo();
  const [asking, setAsking] = useState(false);
  return (
    <>
      <Button variant="subtle" color="red" size="xs" onClick={() => setAsking(true)}>
        Remove logo
      </Button>
      <ConfirmDialog
        opened={asking}
        title="Remove the logo?"
        keepLabel="Keep the logo"
        confirmLabel="Remove logo"
        pendingLabel="Removing the logo…"
        failureTitle="The logo was not removed"
        onClose={() => setAsking(false)}
        onConfirm={async () => {
          await remove.mutateAsync();
          onRemoved();
        }}
      >
        <Text size="sm">
          Cards not yet printed and your landing pages go without it; cards already printed keep it. You can
          upload a logo again at any time.
        </Text>
      </ConfirmDialog>
    </>
  );
}
