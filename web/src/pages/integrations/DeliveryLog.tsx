// The webhook delivery log: one row per event, its attempts on demand (the receiver's answer as
// escaped text, never HTML), and Redeliver for Admins. Polls while a delivery is pending.
import { Alert, Card, EmptyState, Skeleton, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconSend } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { DeliveryCard, DeliveryRow, type Delivery } from './DeliveryItem';
import { DeliveriesQuery, RedeliverMutation } from './operations';
import { Pager } from '../../components/Pager';

const PAGE_SIZE = 20;
const POLL_MS = 2000;
const SLOW_POLL_MS = 30_000;

/** The server's timestamps are UTC, sometimes without a zone suffix. */
function instant(iso: string): number {
  return Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso}Z`);
}

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
  const narrow = useMediaQuery('(max-width: 48em)', false, { getInitialValueInEffect: false });
  const [busy, setBusy] = useState<number | null>(null);
  const items = data?.integration_deliveries.items ?? [];
  const total = data?.integration_deliveries.total ?? 0;
  // Poll fast while an attempt is due within a minute, slowly while retries are far apart.
  const dueSoon = items.some((d) => d.status === 'pending' && (!d.next_attempt_at || instant(d.next_attempt_at) - Date.now() < 60_000));
  const pending = items.some((d) => d.status === 'pending');

  useEffect(() => {
    if (refreshKey > 0) refetch({ requestPolicy: 'network-only' });
  }, [refreshKey, refetch]);

  useEffect(() => {
    if (!pending) return undefined;
    const timer = window.setInterval(() => refetch({ requestPolicy: 'network-only' }), dueSoon ? POLL_MS : SLOW_POLL_MS);
    return () => window.clearInterval(timer);
  }, [pending, dueSoon, refetch]);

  const toggle = (id: number) => setOpen((prev) => {
    const next = new Set(prev);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    return next;
  });

  const caption = `${total} deliver${total === 1 ? 'y' : 'ies'}${dueSoon ? ' · pending deliveries refresh every 2 seconds' : ''}`;
  const itemProps = (d: Delivery) => ({
    delivery: d,
    expanded: open.has(d.delivery_id),
    onToggle: () => toggle(d.delivery_id),
    onRedeliver: mayManage ? () => again(d.delivery_id, d.webhook_id) : undefined,
    busy: busy === d.delivery_id,
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
      {items.length > 0 && !narrow && (
        <Table.ScrollContainer minWidth={860}>
          <Table verticalSpacing="xs">
            <Table.Caption>{caption}</Table.Caption>
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
              {items.map((d) => (
                <DeliveryRow key={d.delivery_id} columns={mayManage ? 8 : 7} {...itemProps(d)} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {items.length > 0 && narrow && (
        <>
          <Stack component="ul" gap="sm" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Deliveries">
            {items.map((d) => <DeliveryCard key={d.delivery_id} {...itemProps(d)} />)}
          </Stack>
          <Text size="sm" c="dimmed" ta="center" mt="sm">{caption}</Text>
        </>
      )}
      <Pager total={total} pageSize={PAGE_SIZE} page={page} onChange={setPage} noun="deliveries" />
    </Card>
  );
}
