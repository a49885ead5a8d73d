// The configuration of an integration (secrets by name only) and its state: the Active switch,
// failures, and the outcome of the last connection test.
import { Alert, Badge, Card, DataList, Group, SimpleGrid, Stack, Switch, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useState } from 'react';
import { useMutation } from 'urql';
import { errorDetail } from '../../api/errors';
import { formatWhen } from '../../components/format';
import type { IntegrationQuery as IntegrationQueryResult } from '../../gql/graphql';
import { fieldLabel, providerLabel } from './fields';
import { UpdateIntegrationMutation } from './operations';

export interface TestOutcome {
  ok: boolean;
  detail: string;
  status_code?: number | null;
  duration_ms: number;
}

interface Props {
  integration: IntegrationQueryResult['integration'];
  mayManage: boolean;
  testOutcome: TestOutcome | null;
  onChanged: () => void;
}

function display(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function IntegrationSummary({ integration, mayManage, testOutcome, onChanged }: Props) {
  const [toggle, update] = useMutation(UpdateIntegrationMutation);
  // The switch moves at once; the server's answer (or its refusal) settles it.
  const [wanted, setWanted] = useState<boolean | null>(null);
  useEffect(() => setWanted(null), [integration.is_active]);
  const config = (integration.config ?? {}) as Record<string, unknown>;

  const setActive = async (active: boolean) => {
    setWanted(active);
    const result = await update({ id: integration.integration_id, input: { is_active: active } });
    if (result.error) {
      setWanted(null);
      notifications.show({ color: 'red', title: 'Could not change Active', message: errorDetail(result.error) });
      return;
    }
    notifications.show({ color: 'green', message: active ? 'Integration turned on.' : 'Integration turned off.' });
    onChanged();
  };

  return (
    <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
      <Card withBorder padding="lg" component="section" aria-labelledby="integration-config-heading">
        <Title order={2} size="h4" id="integration-config-heading" mb="sm">Configuration</Title>
        <DataList labelWidth={150} orientation="horizontal">
          <DataList.Item>
            <DataList.ItemLabel>Provider</DataList.ItemLabel>
            <DataList.ItemValue>{providerLabel(integration.provider)}</DataList.ItemValue>
          </DataList.Item>
          {Object.entries(config).map(([key, value]) => (
            <DataList.Item key={key}>
              <DataList.ItemLabel>{fieldLabel(key)}</DataList.ItemLabel>
              <DataList.ItemValue style={{ overflowWrap: 'anywhere' }}>
                <Text span size="sm" ff="monospace">{display(value)}</Text>
              </DataList.ItemValue>
            </DataList.Item>
          ))}
          {integration.secret_fields.map((name) => (
            <DataList.Item key={name}>
              <DataList.ItemLabel>{fieldLabel(name)}</DataList.ItemLabel>
              <DataList.ItemValue><Text span size="sm" c="dimmed">Set (write-only, never shown)</Text></DataList.ItemValue>
            </DataList.Item>
          ))}
          {integration.provider === 'webhook' && (
            <DataList.Item>
              <DataList.ItemLabel>Events</DataList.ItemLabel>
              <DataList.ItemValue>
                <Group gap={4}>
                  {integration.events.length === 0 && <Text span size="sm" c="dimmed">None</Text>}
                  {integration.events.map((e) => <Badge key={e} variant="default" tt="none">{e}</Badge>)}
                </Group>
              </DataList.ItemValue>
            </DataList.Item>
          )}
          <DataList.Item>
            <DataList.ItemLabel>Created</DataList.ItemLabel>
            <DataList.ItemValue>{formatWhen(integration.created_at)}</DataList.ItemValue>
          </DataList.Item>
          <DataList.Item>
            <DataList.ItemLabel>Updated</DataList.ItemLabel>
            <DataList.ItemValue>{formatWhen(integration.updated_at)}</DataList.ItemValue>
          </DataList.Item>
        </DataList>
      </Card>
      <Card withBorder padding="lg" component="section" aria-labelledby="integration-state-heading">
        <Title order={2} size="h4" id="integration-state-heading" mb="sm">Status</Title>
        <Stack>
          <Switch label="Active" checked={wanted ?? integration.is_active} disabled={!mayManage || toggle.fetching}
            onChange={(event) => setActive(event.currentTarget.checked)}
            description={mayManage
              ? 'An inactive integration receives nothing; turning it on again resets the failure count.'
              : 'Only Admins can turn an integration on or off.'} />
          {integration.disabled_reason && (
            <Alert color="orange" variant="light" title="Disabled by the service">
              {integration.disabled_reason} Turn Active on to re-enable it.
            </Alert>
          )}
          <Text size="sm">
            Consecutive failed events: <Text span fw={600}>{integration.consecutive_failures}</Text>
          </Text>
          {testOutcome && (
            <Alert color={testOutcome.ok ? 'green' : 'red'} role={testOutcome.ok ? 'status' : 'alert'}
              title={testOutcome.ok ? 'Connection OK' : 'Connection failed'}>
              {testOutcome.detail}
              {testOutcome.duration_ms > 0 && <Text span size="sm" c="dimmed"> ({testOutcome.duration_ms} ms)</Text>}
            </Alert>
          )}
          {!testOutcome && mayManage && (
            <Text size="sm" c="dimmed">
              {integration.provider === 'webhook'
                ? 'Test connection sends a signed ping event and logs it in the delivery log.'
                : 'Test connection checks that the bucket can be reached with these credentials.'}
            </Text>
          )}
        </Stack>
      </Card>
    </SimpleGrid>
  );
}
