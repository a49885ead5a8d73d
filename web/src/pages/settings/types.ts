// The settings every tab reads (the SettingsPage query's answer).
import type { SettingsPageQuery } from '../../gql/graphql';

export type SettingsData = SettingsPageQuery['settings'];
