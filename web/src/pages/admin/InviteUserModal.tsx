// Invite a user: the answer's invitation link (to Set password) is shown with a copy button.
import { Alert, Button, CopyButton, Group, Modal, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useState } from 'react';
import { useMutation } from 'urql';
import { useSession } from '../../auth/SessionProvider';
import { graphql } from '../../gql';
import type { Role } from '../../gql/graphql';
import { placeServerError } from '../settings/serverErrors';
import { grantableRoles } from './roles';

const InviteUserMutation = graphql(`
  mutation AdminInviteUser($input: UserInviteInput!) {
    invite_user(input: $input) { id username invitation_url }
  }
`);

const FIELDS = { username: 'username', email: 'email', role: 'role' };

interface Props {
  opened: boolean;
  onClose: () => void;
  onInvited: () => void;
}

export function InviteUserModal({ opened, onClose, onInvited }: Props) {
  const { user } = useSession();
  const [state, invite] = useMutation(InviteUserMutation);
  const [general, setGeneral] = useState<string | null>(null);
  const [invited, setInvited] = useState<{ username: string; url: string } | null>(null);
  const form = useForm({
    initialValues: { username: '', email: '', role: 'Tester' },
    validate: {
      username: (v) => (v.trim().length >= 3 ? null : 'Use at least 3 characters.'),
      email: (v) => (/^\S+@\S+\.\S+$/.test(v.trim()) ? null : 'Enter an email address.'),
    },
  });
  const close = () => {
    form.reset();
    setGeneral(null);
    setInvited(null);
    onClose();
  };
  const submit = form.onSubmit(async (values) => {
    setGeneral(null);
    const result = await invite({ input: { username: values.username.trim(), email: values.email.trim(), role: values.role as Role } });
    const created = result.data?.invite_user;
    if (!created) {
      const placed = placeServerError(result.error, FIELDS);
      form.setErrors(placed.byField);
      setGeneral(placed.general);
      return;
    }
    setInvited({ username: created.username, url: created.invitation_url ?? '' });
    onInvited();
  });

  return (
    <Modal opened={opened} onClose={close} title="Invite user" centered>
      {invited ? (
        <Stack>
          <Alert color="green" title={`${invited.username} is invited`}>
            Send them this link: it opens Set password, after which they can log in. It works once.
          </Alert>
          <TextInput label="Invitation link" value={invited.url} readOnly onFocus={(e) => e.currentTarget.select()} />
          <Group justify="flex-end">
            <CopyButton value={invited.url}>
              {({ copied, copy }) => (
                <Button color={copied ? 'teal' : undefined}
                  leftSection={copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}
                  onClick={() => { copy(); notifications.show({ message: 'The invitation link is copied.' }); }}>
                  Copy invitation link
                </Button>
              )}
            </CopyButton>
            <Button variant="default" onClick={() => { form.reset(); setInvited(null); }}>Invite another</Button>
            <Button variant="default" onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack>
            {general && <Alert color="red" role="alert" title="Could not invite the user">{general}</Alert>}
            <TextInput label="Username" required data-autofocus autoComplete="off" {...form.getInputProps('username')} />
            <TextInput label="Email" type="email" required autoComplete="off" {...form.getInputProps('email')} />
            <Select label="Role" data={grantableRoles(user?.role)} allowDeselect={false} {...form.getInputProps('role')} />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>Cancel</Button>
              <Button type="submit" loading={state.fetching}>Get invitation link</Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
