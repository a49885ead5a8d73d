// The frame of every signed-in page: navigation, the bell, the user menu, the connection banner,
// the shortcuts and the Projects menu.
import { AppShell, Avatar, Burger, Button, Group, Kbd, Menu, NavLink, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  IconChartBar, IconDashboard, IconFolders, IconLibrary, IconLogout, IconPlugConnected, IconSettings, IconShieldLock,
} from '@tabler/icons-react';
import { Suspense, useCallback } from 'react';
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { useSession } from '../auth/SessionProvider';
import { PageLoader } from '../components/PageLoader';
import { ProjectsSpotlight } from '../shortcuts/ProjectsSpotlight';
import { ShortcutsHelp } from '../shortcuts/ShortcutsHelp';
import { useShortcuts } from '../shortcuts/useShortcuts';
import { ConnectionBanner } from './ConnectionBanner';
import { NotificationsBell } from './NotificationsBell';

interface NavItem {
  label: string;
  to: string;
  icon: typeof IconDashboard;
  visible?: (can: (action: string) => boolean) => boolean;
}

const NAV: NavItem[] = [
  { label: 'Dashboard', to: '/', icon: IconDashboard },
  { label: 'Projects', to: '/projects', icon: IconFolders },
  { label: 'Library', to: '/library', icon: IconLibrary },
  { label: 'Integrations', to: '/integrations', icon: IconPlugConnected, visible: (can) => can('integration.read') },
  { label: 'Analytics', to: '/analytics', icon: IconChartBar },
  { label: 'Settings', to: '/settings', icon: IconSettings },
  {
    label: 'Administration', to: '/admin', icon: IconShieldLock,
    visible: (can) => can('user.list') || can('audit.read'),
  },
];

function isActive(pathname: string, to: string): boolean {
  return to === '/' ? pathname === '/' : pathname === to || pathname.startsWith(`${to}/`);
}

export function AppLayout() {
  const session = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const [navOpened, nav] = useDisclosure(false);
  const [helpOpened, help] = useDisclosure(false);
  const openHelp = useCallback(() => help.open(), [help.open]); // eslint-disable-line react-hooks/exhaustive-deps
  useShortcuts(openHelp);

  if (!session.token) {
    const next = location.pathname + location.search;
    return <Navigate to={next === '/' ? '/login' : `/login?next=${encodeURIComponent(next)}`} replace />;
  }
  const user = session.user;
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 230, breakpoint: 'sm', collapsed: { mobile: !navOpened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={navOpened} onClick={nav.toggle} hiddenFrom="sm" size="sm" aria-label={navOpened ? 'Close navigation' : 'Open navigation'} />
            <Text component={Link} to="/" fw={700} size="lg" style={{ textDecoration: 'none', color: 'inherit' }}>
              TDG
            </Text>
            <Text size="sm" c="dimmed" visibleFrom="md">Test Data Generation</Text>
          </Group>
          <Group gap="xs" wrap="nowrap">
            <Button variant="subtle" color="gray" size="compact-sm" onClick={openHelp} visibleFrom="sm"
              rightSection={<Kbd size="xs">?</Kbd>}>
              Keyboard shortcuts
            </Button>
            <NotificationsBell />
            <Menu position="bottom-end" shadow="md">
              <Menu.Target>
                {/* named by its content (axe label-content-name-mismatch: an aria-label left out the avatar's initial) */}
                <UnstyledButton>
                  <VisuallyHidden>Account menu: </VisuallyHidden>
                  <Group gap={6} wrap="nowrap">
                    <Avatar size="sm" radius="xl" color="blue" alt="" src={user?.avatar_url ?? null}>
                      {(user?.display_name || user?.username || '?').slice(0, 1).toUpperCase()}
                    </Avatar>
                    <Text size="sm" visibleFrom="sm">{user?.display_name || user?.username}</Text>
                  </Group>
                </UnstyledButton>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Label>{user ? `${user.username} · ${user.role}` : 'Signed in'}</Menu.Label>
                <Menu.Item leftSection={<IconSettings size={16} aria-hidden />} onClick={() => navigate('/settings')}>Settings</Menu.Item>
                <Menu.Item leftSection={<IconLogout size={16} aria-hidden />}
                  onClick={() => session.signOut().then(() => navigate('/login'))}>
                  Log out
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main navigation">
        <nav aria-label="Main">
          {NAV.filter((item) => !item.visible || item.visible(session.can)).map((item) => (
            <NavLink
              key={item.to}
              component={Link}
              to={item.to}
              label={item.label}
              leftSection={<item.icon size={18} aria-hidden />}
              active={isActive(location.pathname, item.to)}
              aria-current={isActive(location.pathname, item.to) ? 'page' : undefined}
              onClick={nav.close}
            />
          ))}
        </nav>
      </AppShell.Navbar>
      <AppShell.Main>
        <ConnectionBanner />
        <Suspense fallback={<PageLoader />}>{session.loading ? <PageLoader /> : <Outlet />}</Suspense>
      </AppShell.Main>
      <ShortcutsHelp opened={helpOpened} onClose={help.close} />
      <ProjectsSpotlight />
    </AppShell>
  );
}
