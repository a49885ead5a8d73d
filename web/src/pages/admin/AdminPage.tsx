// Administration: users (Manager and up), the audit log (Admin) and tenants (SuperUser), one tab
// each in the URL (/admin/<tab>). Only the tabs the caller may use are offered.
import { Alert, Anchor, Tabs } from '@mantine/core';
import { IconBuilding, IconListDetails, IconUsers } from '@tabler/icons-react';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import { useSession } from '../../auth/SessionProvider';
import { PageTitle } from '../../components/PageTitle';
import { AuditLogTab } from './AuditLogTab';
import { TenantsTab } from './TenantsTab';
import { UsersTab } from './UsersTab';

const TABS = [
  { value: 'users', label: 'Users', icon: IconUsers, action: 'user.list' },
  { value: 'audit', label: 'Audit log', icon: IconListDetails, action: 'audit.read' },
  { value: 'tenants', label: 'Tenants', icon: IconBuilding, action: 'tenant.create' },
] as const;

export default function AdminPage() {
  const { tab } = useParams();
  const navigate = useNavigate();
  const { can } = useSession();
  const tabs = TABS.filter((t) => can(t.action));

  if (tabs.length === 0) {
    return (
      <>
        <PageTitle>Administration</PageTitle>
        <Alert color="gray" title="Nothing to administer with your role">
          Administration is for Managers, Admins and SuperUsers. Your own account is in{' '}
          <Anchor component={Link} to="/settings" inherit>Settings</Anchor>.
        </Alert>
      </>
    );
  }
  const current = tabs.find((t) => t.value === tab) ?? (tab ? null : tabs[0]);
  if (!current) return <Navigate to="/admin" replace />;

  return (
    <>
      <PageTitle>Administration</PageTitle>
      <Tabs value={current.value} onChange={(value) => value && navigate(`/admin/${value}`)} keepMounted={false}>
        <Tabs.List>
          {tabs.map((t) => (
            <Tabs.Tab key={t.value} value={t.value} leftSection={<t.icon size={16} aria-hidden />}>{t.label}</Tabs.Tab>
          ))}
        </Tabs.List>
        <Tabs.Panel value="users" pt="md"><UsersTab /></Tabs.Panel>
        <Tabs.Panel value="audit" pt="md"><AuditLogTab /></Tabs.Panel>
        <Tabs.Panel value="tenants" pt="md"><TenantsTab /></Tabs.Panel>
      </Tabs>
    </>
  );
}
