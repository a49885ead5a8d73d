// Create a user with a password (Admin and up); the role offered is never above the caller's.
import { Alert, Button, Group, Modal, PasswordInput, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useMutation } from 'urql';
import { useSession } from '../../auth/SessionProvider';
import { graphql } from '../../gql';
import type { Role } from '../../gql/graphql';
import { placeServerError } from '../settings/serverErrors';
import { grantableRoles } from './roles';

const CreateUserMutation = graphql(`
  mutation AdminCreateUser($input: UserCreateInput!) {
    create_user(input: $input) { id username role }
  }
`);

const FIELDS = { username: 'username', email: 'email', password: 'password', role: 'role' };

interface Props {
  opened: boolean;
  onClose: () => void;
  onCreated: () => void;
}

export function CreateUserModal({ opened, onClose, onCreated }: Props) {
  const { user } = useSession();
  const [state, create] = useMutation(CreateUserMutation);
  const [general, setGeneral] = useState<string | null>(null);
  const form = useForm({
    initialValues: { username: '', email: '', password: '', role: 'Tester' },
    validate: {
      username: (v) => (v.trim().length >= 3 ? null : 'Use at least 3 characters.'),
      email: (v) => (!v.trim() || /^\S+@\S+\.\S+$/.test(v.trim()) ? null : 'Enter an email address, or leave it empty.'),
      password: (v) => (v.length >= 8 ? null : 'Use at least 8 characters.'),
    },
  });
  const close = () => {
    form.reset();
    setGeneral(null);
    onClose();
  };
  const submit = form.onSubmit(async (values) => {
    setGeneral(null);
    const result = await create({
      input: { username: values.username.trim(), email: values.email.trim() || null, password: values.password, role: values.role as Role },
    });
    const created = result.data?.create_user;
    if (!created) {
      const placed = placeServerError(result.error, FIELDS);
      form.setErrors(placed.byField);
      setGeneral(placed.general);
      return;
    }
    notifications.show({ color: 'green', message: `${created.username} can log in now as ${created.role}.` });
    onCreated();
    close();
  });

  return (
    <Modal opened={opened} onClose={close} title="Create user" centered>
      <form onSubmit={submit} noValidate>
        <Stack>
          {general && <Alert color="red" role="alert" title="Could not create the user">{general}</Alert>}
          <TextInput label="Username" required data-autofocus autoComplete="off" {...form.getInputProps('username')} />
          <TextInput label="Email" type="email" autoComplete="off" {...form.getInputProps('email')} />
          <PasswordInput label="Password" description="At least 8 characters; tell the user to change it in Settings" required
            autoComplete="new-password" {...form.getInputProps('password')} />
          <Select label="Role" data={grantableRoles(user?.role)} allowDeselect={false} {...form.getInputProps('role')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>Cancel</Button>
            <Button type="submit" loading={state.fetching}>Add user</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
