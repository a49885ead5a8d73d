// The bell on every page: unread count (refreshed every 30 s and on focus) and the latest notifications.
import { ActionIcon, Button, Group, Indicator, Popover, ScrollArea, Stack, Text } from '@mantine/core';
import { useInterval, useWindowEvent } from '@mantine/hooks';
import { IconBell } from '@tabler/icons-react';
import { useEffect } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../gql';
import { formatWhen } from '../components/format';

const BellQuery = graphql(`
  query Bell {
    unread_notification_count { count }
    notifications(unread_only: true, limit: 8) { items { notification_id title message created_at } }
  }
`);

const MarkReadMutation = graphql(`
  mutation MarkRead($id: Int!) { mark_notification_read(notification_id: $id) { notification_id is_read } }
`);

export function NotificationsBell() {
  const [{ data }, refetch] = useQuery({ query: BellQuery });
  const [, markRead] = useMutation(MarkReadMutation);
  const poll = useInterval(() => refetch({ requestPolicy: 'network-only' }), 30_000);
  useEffect(() => {
    poll.start();
    return poll.stop;
  }, [poll]);
  useWindowEvent('focus', () => refetch({ requestPolicy: 'network-only' }));
  const count = data?.unread_notification_count.count ?? 0;
  const items = data?.notifications.items ?? [];
  const label = count === 1 ? 'Notifications: 1 unread' : `Notifications: ${count} unread`;
  return (
    <Popover width={340} position="bottom-end" shadow="md" withArrow>
      {/* the indicator wraps the target, so the popover's aria attributes land on the button */}
      <Indicator label={count > 99 ? '99+' : count} size={16} disabled={count === 0} offset={4}>
        <Popover.Target>
          <ActionIcon variant="subtle" size="lg" aria-label={label}>
            <IconBell aria-hidden />
          </ActionIcon>
        </Popover.Target>
      </Indicator>
      <Popover.Dropdown>
        <Stack gap="xs">
          <Text fw={600}>Unread notifications</Text>
          {items.length === 0 && <Text c="dimmed" size="sm">You are all caught up.</Text>}
          <ScrollArea.Autosize mah={320}>
            <Stack gap="xs">
              {items.map((n) => (
                <Group key={n.notification_id} justify="space-between" wrap="nowrap" align="flex-start">
                  <div>
                    <Text size="sm" fw={500}>{n.title}</Text>
                    <Text size="xs" c="dimmed">{n.message}</Text>
                    <Text size="xs" c="dimmed">{formatWhen(n.created_at)}</Text>
                  </div>
                  <Button size="compact-xs" variant="light" onClick={() => markRead({ id: n.notification_id }).then(() => refetch({ requestPolicy: 'network-only' }))}
                    aria-label={`Mark read: ${n.title}`}>
                    Mark read
                  </Button>
                </Group>
              ))}
            </Stack>
          </ScrollArea.Autosize>
          <Button component={Link} to="/notifications" variant="subtle" size="xs">All notifications</Button>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
