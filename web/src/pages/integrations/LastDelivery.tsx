// The newest delivery of a webhook, for the integrations table (s3 integrations deliver nothing).
import { Group, Skeleton, Text } from '@mantine/core';
import { useQuery } from 'urql';
import { formatWhen } from '../../components/format';
import { graphql } from '../../gql';
import { StatusBadge } from './StatusBadge';

const LastDeliveryQuery = graphql(`
  query LastDelivery($integrationId: Int!) {
    integration_deliveries(integration_id: $integrationId, limit: 1, offset: 0) {
      items { delivery_id event_type status created_at }
      total
    }
  }
`);

export function LastDelivery({ integrationId, provider }: { integrationId: number; provider: string }) {
  const [{ data, fetching, error }] = useQuery({
    query: LastDeliveryQuery,
    variables: { integrationId },
    pause: provider !== 'webhook',
  });
  if (provider !== 'webhook') return <Text size="sm" c="dimmed">Not applicable</Text>;
  if (fetching && !data) return <Skeleton height={18} width={120} role="status" aria-label="Loading last delivery" />;
  if (error) return <Text size="sm" c="dimmed">Unavailable</Text>;
  const last = data?.integration_deliveries.items[0];
  if (!last) return <Text size="sm" c="dimmed">None yet</Text>;
  return (
    <Group gap={6} wrap="nowrap">
      <StatusBadge status={last.status} />
      <Text size="xs" c="dimmed">{last.event_type} · {formatWhen(last.created_at)}</Text>
    </Group>
  );
}
