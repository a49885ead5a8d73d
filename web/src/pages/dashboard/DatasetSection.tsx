// A dashboard section listing datasets, with its loading, empty and error states.
import { Alert, Skeleton, Stack, Text } from '@mantine/core';
import type { CombinedError } from 'urql';
import { errorDetail } from '../../api/errors';
import { LiveBadge } from '../../components/datasets/LiveBadge';
import { DatasetsTable } from '../../components/datasets/DatasetsTable';
import type { LiveDataset } from '../../components/datasets/datasetFields';
import { SectionCard } from './SectionCard';

interface Props {
  title: string;
  loading: boolean;
  error: CombinedError | undefined;
  items: LiveDataset[];
  projectNames: Map<number, string>;
  empty: string;
  onChanged: () => void;
  /** Show whether updates arrive live or by polling. */
  live?: boolean;
  /** How many more than shown exist. */
  more?: number;
}

export function DatasetSection({ title, loading, error, items, projectNames, empty, onChanged, live, more = 0 }: Props) {
  const badge = live === undefined ? undefined : <LiveBadge mode={live ? 'live' : 'polling'} />;
  return (
    <SectionCard title={title} actions={badge}>
      {error && <Alert color="red" role="alert" mb="sm">{errorDetail(error)}</Alert>}
      {loading ? (
        <Stack gap="xs"><Skeleton h={32} /><Skeleton h={32} /></Stack>
      ) : items.length === 0 ? (
        !error && <Text size="sm" c="dimmed">{empty}</Text>
      ) : (
        <>
          <DatasetsTable items={items} label={title} projectNames={projectNames} manageable={false} onChanged={onChanged} />
          {more > 0 && <Text size="xs" c="dimmed" mt="xs">and {more.toLocaleString()} more</Text>}
        </>
      )}
    </SectionCard>
  );
}
