// Danger zone: delete (deactivate and anonymise) the caller's account, confirmed with the password.
import { Alert, Button, Group, Modal, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDisclosure } from '@mantine/hooks';
import { useState } from 'react';
import { useMutation } from 'urql';
import { resetRealtime } from '../../api/client';
import { setToken } from '../../api/session';
import { graphql } from '../../gql';
import { placeServerError } from './serverErrors';

const DeleteAccountMutation = graphql(`
  mutation DeleteAccount($input: AccountDeleteInput!) { delete_account(input: $input) { deleted id } }
`);

export function DeleteAccountSection() {
  const [opened, modal] = useDisclosure(false);
  const [state, remove] = useMutation(DeleteAccountMutation);
  const [general, setGeneral] = useState<string | null>(null);
  const form = useForm({
    initialValues: { password: '' },
    validate: { password: (v) => (v ? null : 'Enter your password.') },
  });
  const close = () => {
    form.reset();
    setGeneral(null);
    modal.close();
  };
  const submit = form.onSubmit(async ({ password }) => {
    setGeneral(null);
    const result = await remove({ input: { password } });
    if (result.data?.delete_account.deleted) {
      // the account's tokens are dead now (logging out through the API would only fail); a full
      // load of Log in also drops every cached answer of the deleted account
      resetRealtime();
      setToken(null);
      window.location.replace('/login');
      return;
    }
    const placed = placeServerError(result.error, { password: 'password' });
    form.setErrors(placed.byField);
    setGeneral(placed.general);
  });
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="danger-heading"
      style={{ borderColor: 'var(--mantine-color-red-6)' }}>
      <Stack align="flex-start">
        <Title order={2} size="h4" id="danger-heading" c="red">Danger zone</Title>
        <Text size="sm">
          Deleting your account signs you out everywhere, revokes your API tokens and removes your name, email,
          avatar and two-factor set-up. Projects and datasets stay with your team. This cannot be undone.
        </Text>
        <Button color="red" variant="outline" onClick={modal.open}>Delete my account</Button>
      </Stack>
      <Modal opened={opened} onClose={close} title="Delete your account?" centered>
        <form onSubmit={submit} noValidate>
          <Stack>
            <Text size="sm">Enter your password to confirm. You will be signed out at once.</Text>
            {general && <Alert color="red" role="alert" title="Could not delete the account">{general}</Alert>}
            <PasswordInput label="Password" autoComplete="current-password" required data-autofocus {...form.getInputProps('password')} />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>Cancel</Button>
              <Button type="submit" color="red" loading={state.fetching}>Delete permanently</Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Paper>
  );
}
