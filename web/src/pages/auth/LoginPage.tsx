// Log in, with the one-time code field once the server says the account uses two-factor.
import { Alert, Anchor, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect, useState } from 'react';
import { Navigate, useSearchParams } from 'react-router';
import { useMutation } from 'urql';
import { errorCode, errorDetail } from '../../api/errors';
import { useSession } from '../../auth/SessionProvider';
import { graphql } from '../../gql';

const LoginMutation = graphql(`
  mutation Login($username: String!, $password: String!, $otp: String) {
    login(username: $username, password: $password, otp: $otp) { access_token token_type }
  }
`);

/** Only same-site paths are followed after log-in (no open redirect). */
export function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/login') ? next : '/';
}

export function LoginPage() {
  const session = useSession();
  const [params] = useSearchParams();
  const [state, login] = useMutation(LoginMutation);
  const [needsCode, setNeedsCode] = useState(false);
  const form = useForm({
    initialValues: { username: '', password: '', otp: '' },
    validate: {
      username: (v) => (v.trim() ? null : 'Enter your username.'),
      password: (v) => (v ? null : 'Enter your password.'),
    },
  });
  const serverDetail = errorDetail(state.error);
  // the server asks for the second factor with a 401 of code `one_time_code_required`:
  // for the person logging in that is the next step, not an error, so it is not shown as one
  // (an answer to a submitted code, such as a wrong one, stays an error)
  const [sentCode, setSentCode] = useState(false);
  const asksForCode = !sentCode && errorCode(state.error) === 'one_time_code_required';
  const detail = asksForCode ? null : serverDetail;
  useEffect(() => {
    if (asksForCode) setNeedsCode(true);
  }, [asksForCode]);
  useEffect(() => {
    document.title = 'Log in · Test Data Generation';
  }, []);

  if (session.token) return <Navigate to={safeNext(params.get('next'))} replace />;

  const submit = form.onSubmit(async (values) => {
    const otp = values.otp.trim() || null;
    setSentCode(otp !== null);
    const result = await login({ username: values.username.trim(), password: values.password, otp });
    const token = result.data?.login.access_token;
    if (token) session.signIn(token);
  });

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={400} component="main">
        <form onSubmit={submit} noValidate>
          <Stack>
            <Title order={1} size="h2">Log in</Title>
            <Text size="sm" c="dimmed">Test Data Generation Service</Text>
            {needsCode && !detail && (
              <Text size="sm" role="status">Enter the 6-digit code from your authenticator app.</Text>
            )}
            {params.get('next') && !detail && !needsCode && (
              <Alert color="blue" variant="light">Log in to continue where you were.</Alert>
            )}
            {detail && <Alert color="red" role="alert" title="Could not log in">{detail}</Alert>}
            <TextInput label="Username" autoComplete="username" required autoFocus {...form.getInputProps('username')} />
            <PasswordInput label="Password" autoComplete="current-password" required {...form.getInputProps('password')} />
            {needsCode && (
              <TextInput label="One-time code" description="Or one of your recovery codes."
                autoComplete="one-time-code" inputMode="numeric" autoFocus {...form.getInputProps('otp')} />
            )}
            <Button type="submit" loading={state.fetching} fullWidth>Log in</Button>
            <Text size="xs" c="dimmed">
              Invited? Open the link from your invitation to set a password. Need an API instead? See the{' '}
              <Anchor href="/api/reference" size="xs" underline="always">REST reference</Anchor>.
            </Text>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
