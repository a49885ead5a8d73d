// The project's members and their project roles; owners (Manager and up) add, re-role and remove.
import { Badge, Button, Group, Paper, Select, Stack, Table, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { IconUserMinus, IconUserPlus } from '@tabler/icons-react';
import { useMutation } from 'urql';
import { errorDetail } from '../../api/errors';
import { useSession } from '../../auth/SessionProvider';
import { formatWhen } from '../../components/format';
import { graphql } from '../../gql';
import type { ProjectQuery, ProjectRole } from '../../gql/graphql';
import { AddMemberModal } from './AddMemberModal';
import { ROLE_OPTIONS } from './projectRoles';

const SetMemberRoleMutation = graphql(`
  mutation SetMemberRole($project_id: Int!, $input: MemberAddInput!) {
    add_project_member(project_id: $project_id, input: $input) { project_id members { user_id role } }
  }
`);

const RemoveMemberMutation = graphql(`
  mutation RemoveMember($project_id: Int!, $input: MemberRemoveInput!) {
    remove_project_member(project_id: $project_id, input: $input) { project_id members { user_id role } }
  }
`);

type Member = ProjectQuery['project']['members'][number];

interface Props {
  projectId: number;
  myRole: string;
  members: Member[];
  onChanged: () => void;
}

export function ProjectMembersTab({ projectId, myRole, members, onChanged }: Props) {
  const { can, user } = useSession();
  const [addOpened, add] = useDisclosure(false);
  const [, setRole] = useMutation(SetMemberRoleMutation);
  const [, removeMember] = useMutation(RemoveMemberMutation);
  const manage = can('project.members', myRole);
  const nameOf = (m: Member) => m.user?.username ?? `user ${m.user_id}`;

  const changeRole = async (m: Member, role: string | null) => {
    if (!role || role === m.role) return;
    const result = await setRole({ project_id: projectId, input: { user_id: m.user_id, role: role as ProjectRole } });
    if (result.error) notifications.show({ color: 'red', title: 'Role not changed', message: errorDetail(result.error) });
    else notifications.show({ color: 'green', message: `${nameOf(m)} is now ${role}.` });
    onChanged();
  };

  const confirmRemove = (m: Member) =>
    modals.openConfirmModal({
      title: `Remove ${nameOf(m)} from the project?`,
      children: <Text size="sm">They lose access to this project unless their tenant role grants it.</Text>,
      labels: { confirm: 'Remove', cancel: 'Cancel' },
      confirmProps: { color: 'red.9' },
      closeButtonProps: { 'aria-label': 'Close' },
      onConfirm: async () => {
        const result = await removeMember({ project_id: projectId, input: { user_id: m.user_id } });
        if (result.error) notifications.show({ color: 'red', title: 'Member not removed', message: errorDetail(result.error) });
        else notifications.show({ color: 'green', message: `${nameOf(m)} removed.` });
        onChanged();
      },
    });

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Text size="sm" c="dimmed">
          view: read and download · edit: also create datasets and link schemas · owner: also manage members and the project
        </Text>
        {manage && (
          <Button leftSection={<IconUserPlus size={16} aria-hidden />} onClick={add.open}>Add member</Button>
        )}
      </Group>
      <Paper withBorder radius="md">
        {members.length === 0 ? (
          <Text p="lg">
            No members yet{manage ? ': add one with Add member.' : '.'} Admins, and the Manager who created the project,
            own it without being listed.
          </Text>
        ) : (
          <Table.ScrollContainer minWidth={620} type="native">
            <Table verticalSpacing="sm" aria-label="Members">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">User</Table.Th>
                  <Table.Th scope="col">Tenant role</Table.Th>
                  <Table.Th scope="col">Project role</Table.Th>
                  <Table.Th scope="col">Added</Table.Th>
                  {manage && <Table.Th scope="col" ta="right">Actions</Table.Th>}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {members.map((m) => (
                  <Table.Tr key={m.user_id}>
                    <Table.Td>
                      <Text size="sm" fw={500}>{m.user?.display_name || nameOf(m)}{m.user_id === user?.id ? ' (you)' : ''}</Text>
                      <Text size="xs" c="dimmed">{nameOf(m)}{m.user?.email ? ` · ${m.user.email}` : ''}</Text>
                    </Table.Td>
                    <Table.Td><Text size="sm">{m.user?.role ?? '—'}</Text></Table.Td>
                    <Table.Td>
                      {manage ? (
                        <Select data={ROLE_OPTIONS} value={m.role} allowDeselect={false} w={110} size="xs"
                          aria-label={`Project role of ${nameOf(m)}`} onChange={(v) => changeRole(m, v)} />
                      ) : (
                        <Badge variant="light" tt="none">{m.role}</Badge>
                      )}
                    </Table.Td>
                    <Table.Td><Text size="sm">{formatWhen(m.added_at)}</Text></Table.Td>
                    {manage && (
                      <Table.Td ta="right">
                        <Button size="xs" variant="subtle" color="red" c="red.9" leftSection={<IconUserMinus size={14} aria-hidden />}
                          aria-label={`Remove ${nameOf(m)}`} onClick={() => confirmRemove(m)}>
                          Remove
                        </Button>
                      </Table.Td>
                    )}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Paper>
      <AddMemberModal opened={addOpened} onClose={add.close} projectId={projectId}
        memberIds={members.map((m) => m.user_id)} onAdded={() => { add.close(); onChanged(); }} />
    </Stack>
  );
}
