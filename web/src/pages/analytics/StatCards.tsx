// The period's totals as stat cards.
import { Card, SimpleGrid, Text } from '@mantine/core';
import { formatBytes, formatCount } from '../../components/format';
import type { AnalyticsData } from './data';

export function StatCards({ totals }: { totals: AnalyticsData['totals'] }) {
  const done = totals.completed + totals.failed;
  const stats = [
    { label: 'Datasets', value: formatCount(totals.datasets), hint: `${formatCount(totals.running)} running, ${formatCount(totals.queued)} queued` },
    { label: 'Completed', value: formatCount(totals.completed), hint: done ? `${Math.round((totals.completed / done) * 100)}% of finished` : 'none finished' },
    { label: 'Failed', value: formatCount(totals.failed), hint: done ? `${Math.round((totals.failed / done) * 100)}% of finished` : 'none finished' },
    { label: 'Records', value: formatCount(totals.records), hint: 'generated in the period' },
    { label: 'File size', value: formatBytes(totals.bytes), hint: 'written by these datasets' },
  ];
  return (
    <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} spacing="md" component="dl" m={0}>
      {stats.map((s) => (
        <Card key={s.label} withBorder padding="md">
          <Text component="dt" size="sm" fw={500}>{s.label}</Text>
          <Text component="dd" m={0} fz={26} fw={700} lh={1.2}>{s.value}</Text>
          <Text component="dd" m={0} size="xs" c="dimmed">{s.hint}</Text>
        </Card>
      ))}
    </SimpleGrid>
  );
}
