// One delivery of the log: a table row on wide screens, a card on phones. Both carry the same
// controls ("Show attempts of <event id>", "Redeliver <event id>").
import { ActionIcon, Button, Card, Collapse, Group, Stack, Table, Text } from '@mantine/core';
import { IconChevronDown, IconChevronRight, IconRefresh } from '@tabler/icons-react';
import type { IntegrationDeliveriesQuery } from '../../gql/graphql';
import { formatWhen } from '../../components/format';
import { AttemptList } from './AttemptList';
import { StatusBadge } from './StatusBadge';

export type Delivery = IntegrationDeliveriesQuery['integration_deliveries']['items'][number];

interface Props {
  delivery: Delivery;
  expanded: boolean;
  onToggle: () => void;
  /** Absent for callers who may not redeliver. */
  onRedeliver?: () => void;
  busy: boolean;
}

function Toggle({ delivery: d, expanded, onToggle }: Pick<Props, 'delivery' | 'expanded' | 'onToggle'>) {
  return (
    <ActionIcon variant="subtle" color="gray" onClick={onToggle} aria-expanded={expanded}
      aria-controls={expanded ? `delivery-${d.delivery_id}-attempts` : undefined}
      aria-label={`${expanded ? 'Hide' : 'Show'} attempts of ${d.webhook_id}`}>
      {expanded ? <IconChevronDown size={16} aria-hidden /> : <IconChevronRight size={16} aria-hidden />}
    </ActionIcon>
  );
}

function Redeliver({ delivery: d, onRedeliver, busy }: Pick<Props, 'delivery' | 'onRedeliver' | 'busy'>) {
  if (!onRedeliver) return null;
  return (
    <Button size="xs" variant="default" leftSection={<IconRefresh size={14} aria-hidden />}
      aria-label={`Redeliver ${d.webhook_id}`} loading={busy} onClick={onRedeliver}>
      Redeliver
    </Button>
  );
}

function Attempts({ delivery: d }: { delivery: Delivery }) {
  return <AttemptList attempts={d.attempt_log} nextAttemptAt={d.next_attempt_at} status={d.status} />;
}

export function DeliveryRow(props: Props & { columns: number }) {
  const { delivery: d, expanded, columns } = props;
  return (
    <>
      <Table.Tr>
        <Table.Td><Toggle {...props} /></Table.Td>
        <Table.Td maw={210}>
          <Text size="sm" fw={500}>{d.event_type}</Text>
          <Text size="xs" c="dimmed" ff="monospace" truncate="end" title={d.webhook_id}>{d.webhook_id}</Text>
        </Table.Td>
        <Table.Td><StatusBadge status={d.status} /></Table.Td>
        <Table.Td>{d.attempts}</Table.Td>
        <Table.Td>{d.last_status_code ?? '—'}</Table.Td>
        <Table.Td miw={140} maw={220}>
          <Text size="sm" lineClamp={2} style={{ overflowWrap: 'anywhere' }}>{d.last_error ?? '—'}</Text>
        </Table.Td>
        <Table.Td miw={110}><Text size="sm">{formatWhen(d.created_at)}</Text></Table.Td>
        {props.onRedeliver && <Table.Td><Redeliver {...props} /></Table.Td>}
      </Table.Tr>
      {expanded && (
        <Table.Tr id={`delivery-${d.delivery_id}-attempts`}>
          <Table.Td colSpan={columns} bg="var(--mantine-color-default-hover)"><Attempts delivery={d} /></Table.Td>
        </Table.Tr>
      )}
    </>
  );
}

export function DeliveryCard(props: Props) {
  const { delivery: d, expanded } = props;
  return (
    <Card withBorder padding="sm" component="li">
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <div style={{ minWidth: 0 }}>
          <Text size="sm" fw={600}>{d.event_type}</Text>
          <Text size="xs" c="dimmed" ff="monospace" truncate="end" title={d.webhook_id}>{d.webhook_id}</Text>
        </div>
        <StatusBadge status={d.status} />
      </Group>
      <Text size="sm" mt={6}>
        {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
        {d.last_status_code != null && ` · last answer ${d.last_status_code}`} · {formatWhen(d.created_at)}
      </Text>
      {d.last_error && <Text size="sm" c="red.9" style={{ overflowWrap: 'anywhere' }}>{d.last_error}</Text>}
      <Group justify="space-between" mt="xs">
        <Group gap={4}>
          <Toggle {...props} />
          <Text size="sm">Attempts</Text>
        </Group>
        <Redeliver {...props} />
      </Group>
      <Collapse expanded={expanded}>
        <Stack id={`delivery-${d.delivery_id}-attempts`} mt="xs"><Attempts delivery={d} /></Stack>
      </Collapse>
    </Card>
  );
}
