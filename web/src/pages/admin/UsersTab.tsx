// Users of the tenant (every tenant for a SuperUser): search, filters, invite, create, and per
// row role changes and (de)activation.
import { Alert, Button, Group, Select, Skeleton, Stack, Table, Text, TextInput, VisuallyHidden, useMatches } from '@mantine/core';
import { useDebouncedValue, useDisclosure } from '@mantine/hooks';
import { IconMail, IconSearch, IconUserPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { useSession } from '../../auth/SessionProvider';
import { graphql } from '../../gql';
import type { Role } from '../../gql/graphql';
import { CreateUserModal } from './CreateUserModal';
import { InviteUserModal } from './InviteUserModal';
import { Pager } from '../../components/Pager';
import { ROLE_OPTIONS } from './roles';
import { UserCard, UserRow } from './UserRow';

const UsersQuery = graphql(`
  query AdminUsers($q: String, $role: Role, $is_active: Boolean, $limit: Int!, $offset: Int!) {
    users(q: $q, role: $role, is_active: $is_active, limit: $limit, offset: $offset) {
      total
      items {
        id username display_name email role tenant_id is_active two_factor_enabled invitation_pending
        last_login_at created_at
      }
    }
  }
`);

const PAGE_SIZE = 20;
const STATUS = [
  { value: 'any', label: 'Any status' },
  { value: 'active', label: 'Active' },
  { value: 'inactive', label: 'Inactive' },
];

export function UsersTab() {
  const { can, user } = useSession();
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 300);
  const [role, setRole] = useState<string | null>(null);
  const [status, setStatus] = useState('any');
  const [page, setPage] = useState(1);
  const [inviteOpened, invite] = useDisclosure(false);
  const [createOpened, create] = useDisclosure(false);
  const [{ data, fetching, error }, reexecute] = useQuery({
    query: UsersQuery,
    variables: {
      q: q || null,
      role: (role as Role | null) ?? null,
      is_active: status === 'any' ? null : status === 'active',
      limit: PAGE_SIZE,
      offset: (page - 1) * PAGE_SIZE,
    },
  });
  const reload = () => reexecute({ requestPolicy: 'network-only' });
  const filtered = Boolean(q || role || status !== 'any');
  const items = data?.users.items ?? [];
  const showTenant = user?.role === 'SuperUser';
  const compact = useMatches({ base: true, sm: false });

  return (
    <Stack>
      <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
        <Group align="flex-end" gap="sm" wrap="wrap" style={{ flex: 1 }}>
          <TextInput label="Search users" placeholder="Username, name or email" leftSection={<IconSearch size={16} aria-hidden />}
            value={search} onChange={(e) => { setSearch(e.currentTarget.value); setPage(1); }} miw={220} style={{ flex: 1 }} maw={360} />
          <Select label="Filter by role" placeholder="Any role" data={ROLE_OPTIONS} clearable value={role} w={150}
            onChange={(v) => { setRole(v); setPage(1); }} />
          <Select label="Filter by status" data={STATUS} allowDeselect={false} value={status} w={150}
            onChange={(v) => { setStatus(v ?? 'any'); setPage(1); }} />
        </Group>
        <Group gap="xs">
          {can('user.invite') && (
            <Button variant="default" leftSection={<IconMail size={16} aria-hidden />} onClick={invite.open}>Invite user</Button>
          )}
          {can('user.create') && (
            <Button leftSection={<IconUserPlus size={16} aria-hidden />} onClick={create.open}>Create user</Button>
          )}
        </Group>
      </Group>

      {error && <Alert color="red" role="alert" title="Could not load the users">{errorDetail(error)}</Alert>}
      {fetching && !data && <Stack gap="xs">{[0, 1, 2, 3].map((i) => <Skeleton key={i} h={40} />)}</Stack>}
      {data && items.length === 0 && (
        <Text c="dimmed" size="sm" py="md">
          {filtered ? 'No user matches these filters. Clear the search or the filters to see everyone.' : 'There are no users yet. Invite someone to get started.'}
        </Text>
      )}
      {items.length > 0 && compact && (
        <Stack component="ul" gap="xs" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Users">
          {items.map((row) => <UserCard key={row.id} row={row} showTenant={showTenant} />)}
        </Stack>
      )}
      {items.length > 0 && !compact && (
        <Table.ScrollContainer minWidth={showTenant ? 900 : 820}>
          <Table striped highlightOnHover verticalSpacing="xs" aria-label="Users">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">User</Table.Th>
                <Table.Th scope="col">Email</Table.Th>
                {showTenant && <Table.Th scope="col">Tenant</Table.Th>}
                <Table.Th scope="col">Role</Table.Th>
                <Table.Th scope="col">Status</Table.Th>
                <Table.Th scope="col">Last login</Table.Th>
                {can('user.update') && <Table.Th scope="col"><VisuallyHidden>Actions</VisuallyHidden></Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((row) => <UserRow key={row.id} row={row} showTenant={showTenant} showActions={can('user.update')} />)}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {data && <Pager page={page} pageSize={PAGE_SIZE} total={data.users.total} noun="users" onChange={setPage} />}

      <InviteUserModal opened={inviteOpened} onClose={invite.close} onInvited={reload} />
      <CreateUserModal opened={createOpened} onClose={create.close} onCreated={reload} />
    </Stack>
  );
}
