// The dashboard's counts, each a link to where the things counted are.
import { Anchor, Paper, SimpleGrid, Skeleton, Text } from '@mantine/core';
import { Link } from 'react-router';
import { formatCount } from '../../components/format';

export interface Stat {
  label: string;
  value: number | null;
  detail?: string;
  to: string;
}

export function StatCards({ stats }: { stats: Stat[] }) {
  return (
    <SimpleGrid cols={{ base: 2, md: stats.length }} spacing="sm">
      {stats.map((s) => (
        <Paper key={s.label} withBorder p="md" radius="md">
          <Anchor component={Link} to={s.to} size="sm" c="dimmed" underline="hover">{s.label}</Anchor>
          {s.value == null ? (
            <Skeleton h={30} mt={6} w="50%" />
          ) : (
            <Text fz={28} fw={700} lh={1.3}>{formatCount(s.value)}</Text>
          )}
          {s.detail && <Text size="xs" c="dimmed">{s.detail}</Text>}
        </Paper>
      ))}
    </SimpleGrid>
  );
}
