import { ButtonLink } from "../../ui/links.tsx";
import { EmptyState, PageHeader } from "../../ui/states.tsx";

/** Screens the next issue fills; until then each says what will be here and what to do meanwhile. */
export function RevenuePage() {
  return (
    <>
      <PageHeader title="Revenue" description="Won deals attributed to the postcards that caused them." />
      <EmptyState
        title="No revenue report yet"
        action={
          <ButtonLink to="/settings" search={{ tab: "profile" }} variant="light">
            Set your cost per card
          </ButtonLink>
        }
      >
        Once your CRM reports won deals, this screen shows the revenue your postcards brought in against what
        they cost. Enter your cost per card in Settings so the return is right from the first deal.
      </EmptyState>
    </>
  );
}

export function CustomersPage() {
  return (
    <>
      <PageHeader
        title="Customers"
        description="Homes that are already customers and are not mailed again."
      />
      <EmptyState title="No customers shown here yet">
        Customers your CRM reports are already kept out of your mailings. This screen will list them.
      </EmptyState>
    </>
  );
}
