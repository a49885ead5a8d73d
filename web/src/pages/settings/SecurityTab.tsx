// Security: password, email, two-factor authentication and account deletion. Each form is
// named by its heading, so its fields ("Password" appears in several) can be told apart.
import { Alert, Button, Group, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useMutation } from 'urql';
import { useSession } from '../../auth/SessionProvider';
import { graphql } from '../../gql';
import { DeleteAccountSection } from './DeleteAccountSection';
import { placeServerError } from './serverErrors';
import { TwoFactorSection } from './TwoFactorSection';
import type { SettingsData } from './types';

const ChangePasswordMutation = graphql(`
  mutation ChangePassword($input: PasswordChangeInput!) {
    change_password(input: $input) { ok access_token }
  }
`);

const ChangeEmailMutation = graphql(`
  mutation ChangeEmail($input: EmailChangeInput!) {
    change_email(input: $input) { user_id email }
  }
`);

function PasswordSection() {
  const session = useSession();
  const [state, change] = useMutation(ChangePasswordMutation);
  const [general, setGeneral] = useState<string | null>(null);
  const form = useForm({
    initialValues: { current_password: '', new_password: '' },
    validate: {
      current_password: (v) => (v ? null : 'Enter your current password.'),
      new_password: (v) => (v.length >= 8 ? null : 'Use at least 8 characters.'),
    },
  });
  const submit = form.onSubmit(async (values) => {
    setGeneral(null);
    const result = await change({ input: values });
    const token = result.data?.change_password.access_token;
    if (!token) {
      const placed = placeServerError(result.error, { current_password: 'current_password', new_password: 'new_password' });
      form.setErrors(placed.byField);
      setGeneral(placed.general);
      return;
    }
    session.signIn(token); // earlier session tokens stop working; this one keeps the user in
    form.reset();
    notifications.show({ color: 'green', message: 'Your password is changed. Other sessions have been signed out.' });
  });
  return (
    <Paper withBorder p="md" radius="md">
      <form onSubmit={submit} noValidate aria-labelledby="password-heading">
        <Stack>
          <Title order={2} size="h4" id="password-heading">Password</Title>
          {general && <Alert color="red" role="alert" title="Could not change the password">{general}</Alert>}
          <PasswordInput label="Current password" autoComplete="current-password" required {...form.getInputProps('current_password')} />
          <PasswordInput label="New password" description="At least 8 characters" autoComplete="new-password" required
            {...form.getInputProps('new_password')} />
          <Group><Button type="submit" loading={state.fetching}>Change password</Button></Group>
        </Stack>
      </form>
    </Paper>
  );
}

function EmailSection({ email }: { email: string | null }) {
  const session = useSession();
  const [state, change] = useMutation(ChangeEmailMutation);
  const [general, setGeneral] = useState<string | null>(null);
  const form = useForm({
    initialValues: { email: '', password: '' },
    validate: {
      email: (v) => (/^\S+@\S+\.\S+$/.test(v.trim()) ? null : 'Enter an email address.'),
      password: (v) => (v ? null : 'Enter your password.'),
    },
  });
  const submit = form.onSubmit(async (values) => {
    setGeneral(null);
    const result = await change({ input: { email: values.email.trim(), password: values.password } });
    if (result.error) {
      const placed = placeServerError(result.error, { email: 'email', password: 'password' });
      form.setErrors(placed.byField);
      setGeneral(placed.general);
      return;
    }
    form.reset();
    session.refresh();
    notifications.show({ color: 'green', message: `Your email address is now ${result.data?.change_email.email ?? values.email}.` });
  });
  return (
    <Paper withBorder p="md" radius="md">
      <form onSubmit={submit} noValidate aria-labelledby="email-heading">
        <Stack>
          <Title order={2} size="h4" id="email-heading">Email</Title>
          <Text size="sm">
            Current address: {email ? <strong>{email}</strong> : <Text span c="dimmed">none</Text>}
          </Text>
          {general && <Alert color="red" role="alert" title="Could not change the email address">{general}</Alert>}
          <TextInput label="New email" type="email" autoComplete="email" required {...form.getInputProps('email')} />
          <PasswordInput label="Password" description="Your current password, to confirm" autoComplete="current-password" required
            {...form.getInputProps('password')} />
          <Group><Button type="submit" loading={state.fetching}>Change email</Button></Group>
        </Stack>
      </form>
    </Paper>
  );
}

export function SecurityTab({ settings, onChanged }: { settings: SettingsData; onChanged: () => void }) {
  return (
    <Stack gap="lg" maw={720}>
      <PasswordSection />
      <EmailSection email={settings.email ?? null} />
      <TwoFactorSection enabled={settings.two_factor_enabled} onChanged={onChanged} />
      <DeleteAccountSection />
    </Stack>
  );
}
