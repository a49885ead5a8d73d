// Add a member: a user searched on the server (or typed as an id by callers who may not list
// users) and their project role.
import { Alert, Button, Group, Modal, NumberInput, Select, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useEffect, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorDetail, errorField } from '../../api/errors';
import { useSession } from '../../auth/SessionProvider';
import { graphql } from '../../gql';
import type { ProjectRole } from '../../gql/graphql';
import { ROLE_OPTIONS } from './projectRoles';

const MemberCandidatesQuery = graphql(`
  query MemberCandidates($q: String) {
    users(q: $q, is_active: true, limit: 20) { total items { id username display_name email role } }
  }
`);

const AddMemberMutation = graphql(`
  mutation AddMember($project_id: Int!, $input: MemberAddInput!) {
    add_project_member(project_id: $project_id, input: $input) { project_id members { user_id role } }
  }
`);

interface Props {
  opened: boolean;
  onClose: () => void;
  projectId: number;
  memberIds: number[];
  onAdded: () => void;
}

interface Values {
  user: string | null;
  userId: number | string;
  role: string;
}

export function AddMemberModal({ opened, onClose, projectId, memberIds, onAdded }: Props) {
  const { can } = useSession();
  const canList = can('user.list');
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 250);
  const [picked, setPicked] = useState<string | null>(null);
  const [{ data, fetching }] = useQuery({
    query: MemberCandidatesQuery, variables: { q: q && q !== picked ? q : null }, pause: !opened || !canList,
  });
  const [state, addMember] = useMutation(AddMemberMutation);
  const [general, setGeneral] = useState<string | null>(null);
  const form = useForm<Values>({
    initialValues: { user: null, userId: '', role: 'view' },
    validate: {
      user: (v) => (!canList || v ? null : 'Pick a user.'),
      userId: (v) => (canList || (typeof v === 'number' && v >= 1) ? null : 'Enter the user id.'),
    },
  });
  useEffect(() => {
    if (opened) {
      form.reset();
      setSearch('');
      setPicked(null);
      setGeneral(null);
    }
  }, [opened]); // eslint-disable-line react-hooks/exhaustive-deps

  const options = (data?.users.items ?? [])
    .filter((u) => !memberIds.includes(u.id))
    .map((u) => ({ value: String(u.id), label: u.display_name ? `${u.display_name} (${u.username})` : u.username }));

  const submit = form.onSubmit(async (values) => {
    setGeneral(null);
    const userId = canList ? Number(values.user) : Number(values.userId);
    const result = await addMember({ project_id: projectId, input: { user_id: userId, role: values.role as ProjectRole } });
    if (result.data) {
      notifications.show({ color: 'green', message: 'Member added.' });
      onAdded();
      return;
    }
    const detail = errorDetail(result.error);
    // a user not found, not in the tenant or deactivated: the error names the user_id field
    if (detail && errorField(result.error) === 'user_id') form.setFieldError(canList ? 'user' : 'userId', detail);
    else setGeneral(detail);
  });

  return (
    <Modal opened={opened} onClose={onClose} title="Add member" closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          {general && <Alert color="red" role="alert">{general}</Alert>}
          {canList ? (
            <Select label="User" required searchable data-autofocus placeholder="Search by name, username or email"
              data={options} filter={({ options: all }) => all} searchValue={search} onSearchChange={setSearch}
              description={data && options.length === 0 && !fetching ? 'No user matches (members are not listed).' : undefined}
              {...form.getInputProps('user')}
              onChange={(v, option) => { setPicked(option?.label ?? null); form.setFieldValue('user', v); }} />
          ) : (
            <NumberInput label="User" required data-autofocus description="The user's id (ask an administrator)"
              min={1} allowDecimal={false} allowNegative={false} {...form.getInputProps('userId')} />
          )}
          <Select label="Project role" data={ROLE_OPTIONS} allowDeselect={false} {...form.getInputProps('role')} />
          <Group justify="flex-end" gap="sm" mt="xs">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={state.fetching}>Add member</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
