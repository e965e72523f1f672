import { EmptyState, PageHeader } from "../../ui/states.tsx";

/** A screen the next issue fills; until then it says what will be here. */
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
