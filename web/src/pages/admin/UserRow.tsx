// One user in the Users table: role select and (de)activation where the caller may change them.
import { Badge, Button, Group, Paper, Select, Stack, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation } from 'urql';
import { errorDetail } from '../../api/errors';
import { useSession } from '../../auth/SessionProvider';
import { formatWhen } from '../../components/format';
import { graphql } from '../../gql';
import type { AdminUsersQuery, Role } from '../../gql/graphql';
import { grantableRoles, roleRank } from './roles';

const UpdateUserMutation = graphql(`
  mutation AdminUpdateUser($id: Int!, $input: UserUpdateInput!) {
    update_user(user_id: $id, input: $input) { id role is_active }
  }
`);

type UserItem = AdminUsersQuery['users']['items'][number];

function StatusBadge({ row }: { row: UserItem }) {
  if (row.invitation_pending) return <Badge color="yellow" variant="dot" title="Has not set a password yet">Invited</Badge>;
  return row.is_active ? <Badge color="green" variant="dot">Active</Badge> : <Badge color="gray" variant="dot">Inactive</Badge>;
}

/** The role control, status badges and (de)activation button of one user, shared by the table
 *  row and the phone card so both offer the same controls under the same names. */
function useUserControls(row: UserItem) {
  const { can, user } = useSession();
  const [state, update] = useMutation(UpdateUserMutation);
  const mine = user?.role;
  // the server refuses changes to oneself and to anyone ranked above the caller
  const manageable = can('user.update') && row.id !== user?.id && !!mine && roleRank(row.role) <= roleRank(mine);
  const roles = grantableRoles(mine);

  const change = async (input: { role?: Role; is_active?: boolean }, done: string) => {
    const result = await update({ id: row.id, input });
    if (result.error) notifications.show({ color: 'red', title: `Could not change ${row.username}`, message: errorDetail(result.error) });
    else notifications.show({ color: 'green', message: done });
  };

  const role = manageable && roles.includes(row.role) ? (
    <Select aria-label={`Role of ${row.username}`} data={roles} value={row.role} allowDeselect={false}
      size="xs" w={130} disabled={state.fetching}
      onChange={(value) => value && value !== row.role && change({ role: value as Role }, `${row.username} is now ${value}.`)} />
  ) : (
    <Badge variant="outline" color="gray">{row.role}</Badge>
  );
  const status = (
    <Group gap={4} wrap="nowrap">
      <StatusBadge row={row} />
      {row.two_factor_enabled && <Badge variant="dot" color="blue" title="Two-factor authentication on">2FA</Badge>}
    </Group>
  );
  let action = null;
  if (manageable && row.is_active && !row.invitation_pending) {
    action = (
      <Button size="xs" variant="subtle" color="red" loading={state.fetching} aria-label={`Deactivate ${row.username}`}
        onClick={() => change({ is_active: false }, `${row.username} is deactivated.`)}>
        Deactivate
      </Button>
    );
  } else if (manageable && !row.is_active && !row.invitation_pending) {
    action = (
      <Button size="xs" variant="subtle" loading={state.fetching} aria-label={`Activate ${row.username}`}
        onClick={() => change({ is_active: true }, `${row.username} is active again.`)}>
        Activate
      </Button>
    );
  }
  return { role, status, action };
}

function lastLogin(row: UserItem): string {
  return row.last_login_at ? formatWhen(row.last_login_at) : 'Never';
}

export function UserRow({ row, showTenant, showActions }: { row: UserItem; showTenant: boolean; showActions: boolean }) {
  const { role, status, action } = useUserControls(row);
  return (
    <Table.Tr>
      <Table.Td>
        <Stack gap={0}>
          <Text size="sm" fw={500}>{row.username}</Text>
          {row.display_name && <Text size="xs" c="dimmed">{row.display_name}</Text>}
        </Stack>
      </Table.Td>
      <Table.Td><Text size="sm">{row.email ?? '—'}</Text></Table.Td>
      {showTenant && <Table.Td>{row.tenant_id}</Table.Td>}
      <Table.Td>{role}</Table.Td>
      <Table.Td>{status}</Table.Td>
      <Table.Td><Text size="sm">{lastLogin(row)}</Text></Table.Td>
      {showActions && <Table.Td ta="right">{action}</Table.Td>}
    </Table.Tr>
  );
}

/** The same user as a card, for phones (a seven-column table does not fit 390 px). */
export function UserCard({ row, showTenant }: { row: UserItem; showTenant: boolean }) {
  const { role, status, action } = useUserControls(row);
  return (
    <Paper component="li" withBorder p="sm" radius="md">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={0} style={{ minWidth: 0 }}>
          <Text size="sm" fw={600}>{row.username}</Text>
          {row.display_name && <Text size="xs" c="dimmed">{row.display_name}</Text>}
          <Text size="xs" c="dimmed" truncate>{row.email ?? 'No email'}</Text>
        </Stack>
        {status}
      </Group>
      <Group justify="space-between" mt="xs" wrap="nowrap">
        {role}
        {action}
      </Group>
      <Text size="xs" c="dimmed" mt={6}>
        Last login: {lastLogin(row)}{showTenant ? ` · Tenant ${row.tenant_id}` : ''}
      </Text>
    </Paper>
  );
}
