// Settings: the caller's profile, security, notification switches and API tokens, one tab each
// (the tab is in the URL: /settings/<tab>).
import { Alert, Tabs, useMatches } from '@mantine/core';
import { IconBell, IconKey, IconShieldLock, IconUser } from '@tabler/icons-react';
import { useCallback, type ReactNode } from 'react';
import { Navigate, useNavigate, useParams } from 'react-router';
import { useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { PageLoader } from '../../components/PageLoader';
import { PageTitle } from '../../components/PageTitle';
import { graphql } from '../../gql';
import { NotificationsTab } from './NotificationsTab';
import { ProfileTab } from './ProfileTab';
import { SecurityTab } from './SecurityTab';
import { TokensTab } from './TokensTab';

const SettingsQuery = graphql(`
  query SettingsPage {
    settings { user_id username email display_name theme locale avatar_url two_factor_enabled notifications }
  }
`);

const TABS = [
  { value: 'profile', label: 'Profile', icon: IconUser },
  { value: 'security', label: 'Security', icon: IconShieldLock },
  { value: 'notifications', label: 'Notifications', icon: IconBell },
  { value: 'tokens', label: 'Tokens', icon: IconKey },
] as const;

export default function SettingsPage() {
  const { tab } = useParams();
  const navigate = useNavigate();
  const [{ data, fetching, error }, reexecute] = useQuery({ query: SettingsQuery });
  const reload = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);
  const compact = useMatches({ base: true, sm: false }); // four tabs fit one row on a phone without icons

  if (tab && !TABS.some((t) => t.value === tab)) return <Navigate to="/settings" replace />;
  const current = tab ?? 'profile';
  const settings = data?.settings;

  const body = (render: (s: NonNullable<typeof settings>) => ReactNode) => {
    if (settings) return render(settings);
    if (fetching) return <PageLoader />;
    return <Alert color="red" role="alert" title="Could not load your settings">{errorDetail(error) ?? 'Try again.'}</Alert>;
  };

  return (
    <>
      <PageTitle>Settings</PageTitle>
      <Tabs value={current} onChange={(value) => value && navigate(`/settings/${value}`)} keepMounted={false}>
        <Tabs.List>
          {TABS.map((t) => (
            <Tabs.Tab key={t.value} value={t.value} px={compact ? 10 : undefined}
              leftSection={compact ? undefined : <t.icon size={16} aria-hidden />}>
              {t.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="profile" pt="md">{body((s) => <ProfileTab settings={s} />)}</Tabs.Panel>
        <Tabs.Panel value="security" pt="md">{body((s) => <SecurityTab settings={s} onChanged={reload} />)}</Tabs.Panel>
        <Tabs.Panel value="notifications" pt="md">{body((s) => <NotificationsTab settings={s} />)}</Tabs.Panel>
        <Tabs.Panel value="tokens" pt="md"><TokensTab /></Tabs.Panel>
      </Tabs>
    </>
  );
}
