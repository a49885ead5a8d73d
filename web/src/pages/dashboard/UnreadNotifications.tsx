// The few newest unread notifications, with Mark read and a link to all of them.
import { Anchor, Button, Group, Skeleton, Stack, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useMutation } from 'urql';
import { formatWhen } from '../../components/format';
import { graphql } from '../../gql';
import { SectionCard } from './SectionCard';

const DashboardMarkReadMutation = graphql(`
  mutation DashboardMarkRead($id: Int!) { mark_notification_read(notification_id: $id) { notification_id is_read } }
`);

export interface UnreadItem {
  notification_id: number;
  title: string;
  message: string;
  created_at: string;
  data: unknown;
}

function projectOf(data: unknown): number | null {
  const id = data && typeof data === 'object' ? (data as Record<string, unknown>).project_id : null;
  return typeof id === 'number' ? id : null;
}

export function UnreadNotifications({ items, count, loading }: { items: UnreadItem[]; count: number; loading: boolean }) {
  const [, markRead] = useMutation(DashboardMarkReadMutation);
  return (
    <SectionCard title="Unread notifications"
      actions={<Anchor component={Link} to="/notifications" size="sm">All notifications ({count} unread)</Anchor>}>
      {loading && <Stack gap="xs"><Skeleton h={40} /><Skeleton h={40} /></Stack>}
      {!loading && items.length === 0 && <Text size="sm" c="dimmed">You are all caught up.</Text>}
      <Stack gap="sm">
        {items.map((n) => {
          const projectId = projectOf(n.data);
          return (
            <Group key={n.notification_id} justify="space-between" wrap="nowrap" align="flex-start" gap="sm">
              <div style={{ minWidth: 0 }}>
                <Text size="sm" fw={500}>
                  {projectId != null ? <Anchor component={Link} to={`/projects/${projectId}`} inherit>{n.title}</Anchor> : n.title}
                </Text>
                <Text size="xs" c="dimmed" lineClamp={2}>{n.message}</Text>
                <Text size="xs" c="dimmed">{formatWhen(n.created_at)}</Text>
              </div>
              <Button size="compact-sm" variant="light" style={{ flexShrink: 0 }} aria-label={`Mark read: ${n.title}`}
                onClick={() => markRead({ id: n.notification_id }, { additionalTypenames: ['Notification', 'UnreadCount'] })}>
                Mark read
              </Button>
            </Group>
          );
        })}
      </Stack>
    </SectionCard>
  );
}
