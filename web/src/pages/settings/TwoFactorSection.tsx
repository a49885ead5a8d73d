// Two-factor authentication (TOTP): enrolment with a QR code drawn in the browser from the
// otpauth URI, confirmation with a code, recovery codes shown once; turning it off again.
import { Alert, Badge, Button, Group, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { QRCodeSVG } from 'qrcode.react';
import { useState } from 'react';
import { useMutation } from 'urql';
import { useSession } from '../../auth/SessionProvider';
import { graphql } from '../../gql';
import { RecoveryCodes } from './RecoveryCodes';
import { placeServerError } from './serverErrors';

const EnableTwoFactorMutation = graphql(`
  mutation EnableTwoFactor($input: TwoFactorEnableInput!) {
    enable_2fa(input: $input) { enabled detail secret otpauth_uri recovery_codes }
  }
`);

const DisableTwoFactorMutation = graphql(`
  mutation DisableTwoFactor($input: TwoFactorDisableInput!) {
    disable_2fa(input: $input) { enabled detail }
  }
`);

const QR_LABEL = 'QR code for your authenticator app';

interface Enrolment {
  secret: string;
  uri: string;
}

function Enrol({ enrolment, onDone, onCancel }: { enrolment: Enrolment; onDone: (codes: string[]) => void; onCancel: () => void }) {
  const [state, enable] = useMutation(EnableTwoFactorMutation);
  const [general, setGeneral] = useState<string | null>(null);
  const form = useForm({
    initialValues: { code: '' },
    validate: { code: (v) => (v.trim() ? null : 'Enter the 6-digit code your app shows.') },
  });
  const submit = form.onSubmit(async ({ code }) => {
    setGeneral(null);
    const result = await enable({ input: { code: code.replace(/\s+/g, '') } });
    const status = result.data?.enable_2fa;
    if (status?.enabled) {
      onDone(status.recovery_codes);
      return;
    }
    const placed = placeServerError(result.error, { code: 'code' });
    form.setErrors(placed.byField);
    setGeneral(placed.general);
  });
  return (
    <form onSubmit={submit} noValidate aria-label="Confirm two-factor authentication">
      <Stack>
        <Text size="sm">1. Scan this QR code with an authenticator app (for example Aegis, Google Authenticator or 1Password).</Text>
        <Paper withBorder p="sm" radius="md" bg="white" w="fit-content">
          <QRCodeSVG value={enrolment.uri} size={180} marginSize={2} title={QR_LABEL} role="img" aria-label={QR_LABEL} />
        </Paper>
        <TextInput label="Secret key" description="Cannot scan the code? Enter this key in the app instead." value={enrolment.secret}
          readOnly maw={420} styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          onFocus={(e) => e.currentTarget.select()} />
        <Text size="sm">2. Enter the code the app shows to confirm.</Text>
        {general && <Alert color="red" role="alert" title="Could not turn on two-factor authentication">{general}</Alert>}
        <TextInput label="Authentication code" inputMode="numeric" autoComplete="one-time-code" maw={240} required
          {...form.getInputProps('code')} />
        <Group>
          <Button type="submit" loading={state.fetching}>Turn on two-factor authentication</Button>
          <Button variant="default" onClick={onCancel}>Cancel</Button>
        </Group>
      </Stack>
    </form>
  );
}

function TurnOff({ onDone }: { onDone: () => void }) {
  const [state, disable] = useMutation(DisableTwoFactorMutation);
  const [general, setGeneral] = useState<string | null>(null);
  const form = useForm({
    initialValues: { password: '', code: '' },
    validate: {
      password: (v) => (v ? null : 'Enter your password.'),
      code: (v) => (v.trim() ? null : 'Enter a code from your app or a recovery code.'),
    },
  });
  const submit = form.onSubmit(async (values) => {
    setGeneral(null);
    const result = await disable({ input: { password: values.password, code: values.code.trim() } });
    if (result.data && !result.data.disable_2fa.enabled) {
      form.reset();
      onDone();
      return;
    }
    const placed = placeServerError(result.error, { password: 'password', code: 'code' });
    form.setErrors(placed.byField);
    setGeneral(placed.general);
  });
  return (
    <form onSubmit={submit} noValidate aria-label="Turn off two-factor authentication">
      <Stack>
        <Text size="sm">To turn it off, confirm with your password and a current code (or an unused recovery code).</Text>
        {general && <Alert color="red" role="alert" title="Could not turn off two-factor authentication">{general}</Alert>}
        <PasswordInput label="Password" autoComplete="current-password" required {...form.getInputProps('password')} />
        <TextInput label="Authentication code" autoComplete="one-time-code" maw={240} required {...form.getInputProps('code')} />
        <Group><Button type="submit" color="red" variant="outline" loading={state.fetching}>Turn off two-factor authentication</Button></Group>
      </Stack>
    </form>
  );
}

export function TwoFactorSection({ enabled, onChanged }: { enabled: boolean; onChanged: () => void }) {
  const session = useSession();
  const [start, enable] = useMutation(EnableTwoFactorMutation);
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [recovery, setRecovery] = useState<string[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const changed = () => {
    onChanged();
    session.refresh();
  };
  const begin = async () => {
    setProblem(null);
    const result = await enable({ input: {} });
    const status = result.data?.enable_2fa;
    if (status?.secret && status.otpauth_uri) setEnrolment({ secret: status.secret, uri: status.otpauth_uri });
    else setProblem(placeServerError(result.error, {}).general ?? 'The server did not start the set-up.');
  };

  let body;
  if (recovery) {
    body = <RecoveryCodes codes={recovery} onDone={() => setRecovery(null)} />;
  } else if (enabled) {
    body = (
      <TurnOff onDone={() => {
        changed();
        notifications.show({ color: 'green', message: 'Two-factor authentication is off.' });
      }} />
    );
  } else if (enrolment) {
    body = (
      <Enrol enrolment={enrolment} onCancel={() => setEnrolment(null)} onDone={(codes) => {
        setEnrolment(null);
        setRecovery(codes);
        changed();
      }} />
    );
  } else {
    body = (
      <Stack align="flex-start">
        <Text size="sm">
          Protect your account with a one-time code from an authenticator app in addition to your password.
          API tokens keep working.
        </Text>
        {problem && <Alert color="red" role="alert" w="100%">{problem}</Alert>}
        <Button onClick={begin} loading={start.fetching}>Set up two-factor authentication</Button>
      </Stack>
    );
  }
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="two-factor-heading">
      <Stack>
        <Group justify="space-between">
          <Title order={2} size="h4" id="two-factor-heading">Two-factor authentication</Title>
          <Badge color={enabled ? 'green' : 'gray'} variant="dot">{enabled ? 'On' : 'Off'}</Badge>
        </Group>
        {body}
      </Stack>
    </Paper>
  );
}
