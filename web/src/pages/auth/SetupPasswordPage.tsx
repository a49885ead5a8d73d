// Set password: where an invitation link lands (`/setup-password?token=`).
import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useMutation } from 'urql';
import { errorDetail } from '../../api/errors';
import { graphql } from '../../gql';

const SetupPasswordMutation = graphql(`
  mutation SetupPassword($input: SetupPasswordInput!) { setup_password(input: $input) { id username } }
`);

export function SetupPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [state, setup] = useMutation(SetupPasswordMutation);
  const [username, setUsername] = useState<string | null>(null);
  const form = useForm({
    initialValues: { password: '', confirm: '' },
    validate: {
      password: (v) => (v.length >= 8 ? null : 'Use at least 8 characters.'),
      confirm: (v, values) => (v === values.password ? null : 'The passwords do not match.'),
    },
  });
  useEffect(() => {
    document.title = 'Set password · Test Data Generation';
  }, []);
  const submit = form.onSubmit(async (values) => {
    const result = await setup({ input: { token, password: values.password } });
    if (result.data) setUsername(result.data.setup_password.username);
  });
  const detail = errorDetail(state.error);
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={420} component="main">
        <Stack>
          <Title order={1} size="h2">Set password</Title>
          {!token && <Alert color="red" role="alert">This link has no invitation token. Open the link from your invitation again.</Alert>}
          {username ? (
            <>
              <Alert color="green" role="status" title="Password set">
                Your account <strong>{username}</strong> is ready.
              </Alert>
              <Button component={Link} to="/login">Go to Log in</Button>
            </>
          ) : (
            <form onSubmit={submit} noValidate>
              <Stack>
                <Text size="sm" c="dimmed">Choose a password for your new account.</Text>
                {detail && <Alert color="red" role="alert" title="Could not set the password">{detail}</Alert>}
                <PasswordInput label="New password" autoComplete="new-password" required {...form.getInputProps('password')} />
                <PasswordInput label="Repeat password" autoComplete="new-password" required {...form.getInputProps('confirm')} />
                <Button type="submit" loading={state.fetching} disabled={!token}>Set password</Button>
              </Stack>
            </form>
          )}
        </Stack>
      </Paper>
    </Center>
  );
}
