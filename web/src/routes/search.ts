/** The typed search parameters of the screens with tabs (the tab lives in the URL, so it can be linked). */
export const DEVELOPER_TABS = ["keys", "webhooks", "samples", "mcp"] as const;
export type DeveloperTab = (typeof DEVELOPER_TABS)[number];

export const SETTINGS_TABS = ["profile", "team", "safety", "connections", "account"] as const;
export type SettingsTab = (typeof SETTINGS_TABS)[number];
