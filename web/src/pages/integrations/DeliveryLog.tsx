// The webhook delivery log: one row per event, its attempts on demand (the receiver's answer as
// escaped text, never HTML), and Redeliver for Admins. Polls while a delivery is pending.
import { ActionIcon, Alert, Button, Card, EmptyState, Skeleton, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconChevronDown, IconChevronRight, IconRefresh, IconSend } from '@tabler/icons-react';
import { Fragment, useEffect, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { formatWhen } from '../../components/format';
import { AttemptList } from './AttemptList';
import { DeliveriesQuery, RedeliverMutation } from './operations';
import { Pager } from './Pager';
import { StatusBadge } from './StatusBadge';

const PAGE_SIZE = 20;
const POLL_MS = 2000;

interface Props {
  integrationId: number;
  mayManage: boolean;
  /** Bumped by the page after something that adds a delivery (a connection test). */
  refreshKey: number;
}

export function DeliveryLog({ integrationId, mayManage, refreshKey }: Props) {
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<Set<number>>(new Set());
  const [{ data, fetching, error }, refetch] = useQuery({
    query: DeliveriesQuery,
    variables: { id: integrationId, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE },
  });
  const [, redeliver] = useMutation(RedeliverMutation);
  const [busy, setBusy] = useState<number | null>(null);
  const items = data?.integration_deliveries.items ?? [];
  const total = data?.integration_deliveries.total ?? 0;
  const pending = items.some((d) => d.status === 'pending');

  useEffect(() => {
    if (refreshKey > 0) refetch({ requestPolicy: 'network-only' });
  }, [refreshKey, refetch]);

  useEffect(() => {
    if (!pending) return undefined;
    const timer = window.setInterval(() => refetch({ requestPolicy: 'network-only' }), POLL_MS);
    return () => window.clearInterval(timer);
  }, [pending, refetch]);

  const toggle = (id: number) => setOpen((prev) => {
    const next = new Set(prev);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    return next;
  });

  const again = async (deliveryId: number, webhookId: string) => {
    setBusy(deliveryId);
    const result = await redeliver({ id: integrationId, deliveryId });
    setBusy(null);
    if (result.error) {
      notifications.show({ color: 'red', title: 'Could not redeliver', message: errorDetail(result.error) });
      return;
    }
    notifications.show({ color: 'green', message: `Event ${webhookId} queued again with the same webhook-id.` });
    setPage(1);
    refetch({ requestPolicy: 'network-only' });
  };

  return (
    <Card withBorder padding="lg" mt="md" component="section" aria-labelledby="delivery-log-heading">
      <Card.Section withBorder inheritPadding py="sm" mb="sm">
        <Title order={2} size="h4" id="delivery-log-heading">Delivery log</Title>
        <Text size="sm" c="dimmed">
          Newest first. Failed attempts are retried with back-off; a redelivery sends the same event id again.
        </Text>
      </Card.Section>
      {error && <Alert color="red" role="alert" title="Could not load the delivery log">{errorDetail(error)}</Alert>}
      {fetching && !data && <Skeleton height={120} role="status" aria-label="Loading the delivery log" />}
      {data && items.length === 0 && (
        <EmptyState icon={<IconSend size={24} aria-hidden />} title="No deliveries yet"
          description={mayManage
            ? 'Events are logged here as they are sent. Use Test connection to send a ping now.'
            : 'Events are logged here as they are sent.'} />
      )}
      {items.length > 0 && (
        <Table.ScrollContainer minWidth={1000}>
          <Table verticalSpacing="xs">
            <Table.Caption>
              {total} deliver{total === 1 ? 'y' : 'ies'}
              {pending && ' · pending deliveries refresh every 2 seconds'}
            </Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col" w={40}><VisuallyHidden>Attempts detail</VisuallyHidden></Table.Th>
                <Table.Th scope="col">Event type</Table.Th>
                <Table.Th scope="col">Status</Table.Th>
                <Table.Th scope="col">Attempts</Table.Th>
                <Table.Th scope="col">Last status code</Table.Th>
                <Table.Th scope="col">Last error</Table.Th>
                <Table.Th scope="col">Created</Table.Th>
                {mayManage && <Table.Th scope="col"><VisuallyHidden>Actions</VisuallyHidden></Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((d) => {
                const expanded = open.has(d.delivery_id);
                const panelId = `delivery-${d.delivery_id}-attempts`;
                return (
                  <Fragment key={d.delivery_id}>
                    <Table.Tr>
                      <Table.Td>
                        <ActionIcon variant="subtle" color="gray" onClick={() => toggle(d.delivery_id)}
                          aria-expanded={expanded} aria-controls={expanded ? panelId : undefined}
                          aria-label={`${expanded ? 'Hide' : 'Show'} attempts of ${d.webhook_id}`}>
                          {expanded ? <IconChevronDown size={16} aria-hidden /> : <IconChevronRight size={16} aria-hidden />}
                        </ActionIcon>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm" fw={500}>{d.event_type}</Text>
                        <Text size="xs" c="dimmed" ff="monospace">{d.webhook_id}</Text>
                      </Table.Td>
                      <Table.Td><StatusBadge status={d.status} /></Table.Td>
                      <Table.Td>{d.attempts}</Table.Td>
                      <Table.Td>{d.last_status_code ?? '—'}</Table.Td>
                      <Table.Td miw={180} maw={320}><Text size="sm" lineClamp={2} style={{ overflowWrap: 'anywhere' }}>{d.last_error ?? '—'}</Text></Table.Td>
                      <Table.Td><Text size="sm" style={{ whiteSpace: 'nowrap' }}>{formatWhen(d.created_at)}</Text></Table.Td>
                      {mayManage && (
                        <Table.Td>
                          <Button size="xs" variant="light" leftSection={<IconRefresh size={14} aria-hidden />}
                            aria-label={`Redeliver ${d.webhook_id}`} loading={busy === d.delivery_id}
                            onClick={() => again(d.delivery_id, d.webhook_id)}>
                            Redeliver
                          </Button>
                        </Table.Td>
                      )}
                    </Table.Tr>
                    {expanded && (
                      <Table.Tr id={panelId}>
                        <Table.Td colSpan={mayManage ? 8 : 7} bg="var(--mantine-color-default-hover)">
                          <AttemptList attempts={d.attempt_log} nextAttemptAt={d.next_attempt_at} status={d.status} />
                        </Table.Td>
                      </Table.Tr>
                    )}
                  </Fragment>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Pager total={total} pageSize={PAGE_SIZE} page={page} onChange={setPage} label="Delivery log pages" />
    </Card>
  );
}
