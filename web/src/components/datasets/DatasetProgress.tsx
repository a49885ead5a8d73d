import { Group, Progress, Text } from '@mantine/core';
import { formatCount } from '../format';
import type { LiveDataset } from './datasetFields';

type Props = Pick<LiveDataset, 'name' | 'status' | 'progress' | 'records_generated' | 'record_count'> & {
  withCounts?: boolean;
};

/** Progress of a dataset's generation, labelled for screen readers with the dataset's name. */
export function DatasetProgress({ name, status, progress, records_generated, record_count, withCounts }: Props) {
  const done = status === 'completed';
  const value = done ? 100 : Math.round(Math.max(0, Math.min(1, progress)) * 1000) / 10;
  const color = status === 'failed' ? 'red' : status === 'cancelled' ? 'orange' : done ? 'green' : 'blue';
  return (
    <div>
      <Group gap="xs" wrap="nowrap">
        <Progress
          value={value}
          color={color}
          animated={status === 'running'}
          striped={status === 'running'}
          style={{ flex: 1, minWidth: 80 }}
          aria-label={`Progress of ${name}`}
        />
        <Text size="xs" c="dimmed" w={44} ta="right">{value}%</Text>
      </Group>
      {withCounts && (
        <Text size="xs" c="dimmed">
          {formatCount(done ? record_count : records_generated)} of {formatCount(record_count)} records
        </Text>
      )}
    </div>
  );
}
