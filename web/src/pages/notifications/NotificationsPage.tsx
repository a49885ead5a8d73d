// Notifications: the caller's notifications, newest first, paginated on the server, with an unread
// filter and Mark read.
import { Alert, Anchor, Badge, Button, Group, Paper, Skeleton, Stack, Switch, Text } from '@mantine/core';
import { notifications as toasts } from '@mantine/notifications';
import { IconCheck } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useMutation, useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { PageTitle } from '../../components/PageTitle';
import { formatWhen } from '../../components/format';
import { graphql } from '../../gql';
import { Pager } from '../../components/Pager';

const NotificationsQuery = graphql(`
  query NotificationsPage($unread_only: Boolean!, $limit: Int!, $offset: Int!) {
    notifications(unread_only: $unread_only, limit: $limit, offset: $offset) {
      total
      items { notification_id type title message data created_at read_at is_read }
    }
    unread_notification_count { count }
  }
`);

const NotificationsMarkReadMutation = graphql(`
  mutation NotificationsMarkRead($id: Int!) { mark_notification_read(notification_id: $id) { notification_id is_read read_at } }
`);

const PAGE_SIZE = 20;

function idOf(data: unknown, key: 'project_id' | 'dataset_id'): number | null {
  const id = data && typeof data === 'object' ? (data as Record<string, unknown>)[key] : null;
  return typeof id === 'number' ? id : null;
}

/** Where a notification's title leads: its dataset's page, else its project's. */
function linkOf(data: unknown): string | null {
  const datasetId = idOf(data, 'dataset_id');
  if (datasetId != null) return `/datasets/${datasetId}`;
  const projectId = idOf(data, 'project_id');
  return projectId != null ? `/projects/${projectId}` : null;
}

export default function NotificationsPage() {
  const [params, setParams] = useSearchParams();
  // local state answers the click at once; the URL (for links and reloads) follows
  const [unreadOnly, setUnreadOnly] = useState(params.get('unread') === '1');
  const page = Math.max(1, Number(params.get('page')) || 1);
  const variables = useMemo(
    () => ({ unread_only: unreadOnly, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
    [unreadOnly, page],
  );
  const context = useMemo(() => ({ additionalTypenames: ['Notification'] }), []);
  const [{ data, fetching, error }, refetch] = useQuery({ query: NotificationsQuery, variables, context });
  const [markState, markRead] = useMutation(NotificationsMarkReadMutation);
  const items = data?.notifications.items ?? [];
  const total = data?.notifications.total ?? 0;
  const unread = data?.unread_notification_count.count ?? 0;

  const update = (next: { unread?: boolean; page?: number }) =>
    setParams((prev) => {
      const out = new URLSearchParams(prev);
      if (next.unread !== undefined) {
        if (next.unread) out.set('unread', '1');
        else out.delete('unread');
        out.delete('page');
      }
      if (next.page !== undefined) {
        if (next.page > 1) out.set('page', String(next.page));
        else out.delete('page');
      }
      return out;
    }, { replace: true });

  const mark = async (id: number) => {
    const result = await markRead({ id });
    if (result.error) toasts.show({ color: 'red', title: 'Not marked read', message: errorDetail(result.error) });
    refetch({ requestPolicy: 'network-only' });
  };

  return (
    <>
      <PageTitle>Notifications</PageTitle>
      <Stack gap="md">
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Switch label="Unread only" checked={unreadOnly} onChange={(e) => {
            const checked = e.currentTarget.checked;
            setUnreadOnly(checked);
            update({ unread: checked });
          }} />
          <Text size="sm" c="dimmed" aria-live="polite">{data ? `${unread.toLocaleString()} unread` : ''}</Text>
        </Group>
        {error && <Alert color="red" role="alert" title="Could not load notifications">{errorDetail(error)}</Alert>}
        <Paper withBorder radius="md">
          {!data && fetching ? (
            <Stack p="md" gap="sm">{[0, 1, 2].map((i) => <Skeleton key={i} h={56} />)}</Stack>
          ) : items.length === 0 ? (
            <Text p="lg">
              {unreadOnly
                ? 'No unread notifications. You are all caught up.'
                : 'No notifications yet. You are told here when your datasets finish or fail.'}
            </Text>
          ) : (
            <Stack gap={0} component="ul" m={0} p={0} style={{ listStyle: 'none' }} aria-label="Notifications">
              {items.map((n, i) => {
                const to = linkOf(n.data);
                return (
                  <Group key={n.notification_id} component="li" justify="space-between" wrap="nowrap" align="flex-start"
                    gap="sm" p="md" style={i ? { borderTop: '1px solid var(--mantine-color-default-border)' } : undefined}>
                    <div style={{ minWidth: 0 }}>
                      <Group gap="xs" wrap="wrap">
                        <Text size="sm" fw={n.is_read ? 400 : 600}>
                          {to != null
                            ? <Anchor component={Link} to={to} inherit>{n.title}</Anchor>
                            : n.title}
                        </Text>
                        {!n.is_read && <Badge size="xs" variant="filled" tt="none">Unread</Badge>}
                        {n.type === 'dataset.failed' && <Badge size="xs" color="red.9" variant="filled" tt="none">Failed</Badge>}
                      </Group>
                      <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>{n.message}</Text>
                      <Text size="xs" c="dimmed">
                        {formatWhen(n.created_at)}{n.read_at ? ` · read ${formatWhen(n.read_at)}` : ''}
                      </Text>
                    </div>
                    {!n.is_read && (
                      <Button size="compact-sm" variant="light" style={{ flexShrink: 0 }} loading={markState.fetching && markState.operation?.variables.id === n.notification_id}
                        leftSection={<IconCheck size={14} aria-hidden />} aria-label={`Mark read: ${n.title}`}
                        onClick={() => mark(n.notification_id)}>
                        Mark read
                      </Button>
                    )}
                  </Group>
                );
              })}
            </Stack>
          )}
        </Paper>
        <Pager page={page} pageSize={PAGE_SIZE} total={total} noun="notifications" onChange={(p) => update({ page: p })} />
      </Stack>
    </>
  );
}
