// API tokens (Settings -> Tokens): create with a name and optionally a scope (the secret is shown
// once), list with each token's scope, revoke.
import { Alert, Button, Group, Paper, Select, Skeleton, Stack, Table, Text, TextInput, Title, VisuallyHidden, useMatches } from '@mantine/core';
import { useForm } from '@mantine/form';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { IconKey, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { formatWhen } from '../../components/format';
import { graphql } from '../../gql';
import { NewTokenModal } from './NewTokenModal';
import { NO_SCOPE, scopeInput, scopeText, TokenScopeFields, useProjectNames, type ScopeValues } from './TokenScope';
import { placeServerError } from './serverErrors';

const TokensQuery = graphql(`
  query ApiTokens { api_tokens { token_id name prefix created_at last_used_at expires_at project_ids actions } }
`);

const CreateTokenMutation = graphql(`
  mutation CreateApiToken($input: ApiTokenCreateInput!) {
    create_api_token(input: $input) { token_id name token expires_at }
  }
`);

const RevokeTokenMutation = graphql(`
  mutation RevokeApiToken($id: Int!) { revoke_api_token(token_id: $id) { deleted id } }
`);

const EXPIRY = [
  { value: 'never', label: 'Never' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In 1 year' },
];

function expiresAt(choice: string): string | null {
  if (choice === 'never') return null;
  return new Date(Date.now() + Number(choice) * 86_400_000).toISOString();
}

export function TokensTab() {
  const [{ data, fetching, error }, reexecute] = useQuery({ query: TokensQuery });
  const [createState, create] = useMutation(CreateTokenMutation);
  const [, revoke] = useMutation(RevokeTokenMutation);
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const [general, setGeneral] = useState<string | null>(null);
  const form = useForm<{ name: string; expiry: string; scope: ScopeValues }>({
    initialValues: { name: '', expiry: 'never', scope: NO_SCOPE },
    validate: {
      name: (v) => (v.trim() ? null : 'Name the token, e.g. after the CI job that uses it.'),
      scope: { actions: (v, all) => (all.scope.limited && v.length === 0 ? 'Choose at least one action.' : null) },
    },
  });
  const projectNames = useProjectNames();
  const reload = () => reexecute({ requestPolicy: 'network-only' });

  const submit = form.onSubmit(async (values) => {
    setGeneral(null);
    const result = await create({
      input: { name: values.name.trim(), expires_at: expiresAt(values.expiry), ...scopeInput(values.scope) },
    });
    const token = result.data?.create_api_token;
    if (!token) {
      const placed = placeServerError(
        result.error,
        { name: 'name', expires_at: 'expiry', project_ids: 'scope.projects', actions: 'scope.actions' },
      );
      form.setErrors(placed.byField);
      setGeneral(placed.general);
      return;
    }
    setCreated({ name: token.name, token: token.token });
    form.reset();
    reload();
  });

  const confirmRevoke = (id: number, name: string) =>
    modals.openConfirmModal({
      title: `Revoke token ${name}?`,
      children: <Text size="sm">Anything that uses this token stops working at once. This cannot be undone.</Text>,
      labels: { confirm: 'Revoke', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: async () => {
        const result = await revoke({ id });
        if (result.error) notifications.show({ color: 'red', title: 'Could not revoke the token', message: errorDetail(result.error) });
        else notifications.show({ color: 'green', message: `The token ${name} is revoked.` });
        reload();
      },
    });

  const tokens = data?.api_tokens ?? [];
  const compact = useMatches({ base: true, sm: false });
  const revokeButton = (t: { token_id: number; name: string }) => (
    <Button size="xs" variant="subtle" color="red" leftSection={<IconTrash size={14} aria-hidden />}
      aria-label={`Revoke token ${t.name}`} onClick={() => confirmRevoke(t.token_id, t.name)}>
      Revoke
    </Button>
  );
  return (
    <Stack gap="lg" maw={960}>
      <Paper withBorder p="md" radius="md" maw={720}>
        <form onSubmit={submit} noValidate aria-labelledby="new-token-heading">
          <Stack>
            <div>
              <Title order={2} size="h4" id="new-token-heading">New API token</Title>
              <Text size="sm" c="dimmed">
                For scripts and CI: send it as <Text span ff="monospace">Authorization: Bearer &lt;token&gt;</Text>. It acts with
                your role, or less when you limit it.
              </Text>
            </div>
            {general && <Alert color="red" role="alert" title="Could not create the token">{general}</Alert>}
            <Group align="flex-start" grow preventGrowOverflow={false} wrap="wrap">
              <TextInput label="Token name" placeholder="e.g. nightly-ci" maxLength={100} miw={200} required
                {...form.getInputProps('name')} />
              <Select label="Expires" data={EXPIRY} allowDeselect={false} miw={160} {...form.getInputProps('expiry')} />
            </Group>
            <TokenScopeFields values={form.values.scope}
              errors={{ projects: form.errors['scope.projects'] as string | undefined, actions: form.errors['scope.actions'] as string | undefined }}
              onChange={(scope) => form.setFieldValue('scope', scope)} />
            <Group>
              <Button type="submit" loading={createState.fetching} leftSection={<IconKey size={16} aria-hidden />}>Create token</Button>
            </Group>
          </Stack>
        </form>
      </Paper>

      <section aria-labelledby="tokens-heading">
        <Title order={2} size="h4" id="tokens-heading" mb="sm">Your API tokens</Title>
        {error && !data && <Alert color="red" role="alert" title="Could not load your tokens">{errorDetail(error)}</Alert>}
        {fetching && !data && <Stack gap="xs">{[0, 1, 2].map((i) => <Skeleton key={i} h={36} />)}</Stack>}
        {data && tokens.length === 0 && (
          <Text c="dimmed" size="sm">You have no API tokens. Create one above to call the API from a script.</Text>
        )}
        {tokens.length > 0 && compact && (
          <Stack component="ul" gap="xs" p={0} m={0} style={{ listStyle: 'none' }} aria-labelledby="tokens-heading">
            {tokens.map((t) => (
              <Paper component="li" key={t.token_id} withBorder p="sm" radius="md">
                <Group justify="space-between" wrap="nowrap">
                  <div style={{ minWidth: 0 }}>
                    <Text size="sm" fw={600} truncate>{t.name}</Text>
                    <Text size="xs" c="dimmed" ff="monospace">{t.prefix}…</Text>
                  </div>
                  {revokeButton(t)}
                </Group>
                <Group gap={4} mt={4}>
                  <Text size="xs" fw={500}>Scope:</Text>
                  <Text size="xs">{scopeText(t, projectNames)}</Text>
                </Group>
                <Text size="xs" c="dimmed" mt={4}>
                  Created {formatWhen(t.created_at)} · last used {t.last_used_at ? formatWhen(t.last_used_at) : 'never'} ·
                  expires {t.expires_at ? formatWhen(t.expires_at) : 'never'}
                </Text>
              </Paper>
            ))}
          </Stack>
        )}
        {tokens.length > 0 && !compact && (
          <Table.ScrollContainer minWidth={640}>
            <Table striped highlightOnHover aria-labelledby="tokens-heading">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Name</Table.Th>
                  <Table.Th scope="col">Scope</Table.Th>
                  <Table.Th scope="col">Created</Table.Th>
                  <Table.Th scope="col">Last used</Table.Th>
                  <Table.Th scope="col">Expires</Table.Th>
                  <Table.Th scope="col"><VisuallyHidden>Actions</VisuallyHidden></Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {tokens.map((t) => (
                  <Table.Tr key={t.token_id}>
                    <Table.Td>
                      <Text size="sm" fw={500}>{t.name}</Text>
                      <Text size="xs" c="dimmed" ff="monospace">{t.prefix}…</Text>
                    </Table.Td>
                    <Table.Td><Text size="sm">{scopeText(t, projectNames)}</Text></Table.Td>
                    <Table.Td>{formatWhen(t.created_at)}</Table.Td>
                    <Table.Td>{t.last_used_at ? formatWhen(t.last_used_at) : 'Never'}</Table.Td>
                    <Table.Td>{t.expires_at ? formatWhen(t.expires_at) : 'Never'}</Table.Td>
                    <Table.Td ta="right">{revokeButton(t)}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </section>
      <NewTokenModal created={created} onClose={() => setCreated(null)} />
    </Stack>
  );
}
