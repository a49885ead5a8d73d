// Period (7 / 30 / 90 / 365 days) and Project (the caller's projects, searched on the server).
import { Group, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useId, useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import type { AnalyticsPeriod } from '../../gql/graphql';
import { PERIODS } from './data';

const ALL = 'all';

const AnalyticsProjectsQuery = graphql(`
  query AnalyticsProjects($q: String) {
    projects(q: $q, limit: 50, offset: 0) { items { project_id name } total }
  }
`);

interface Props {
  period: AnalyticsPeriod;
  onPeriod: (period: AnalyticsPeriod) => void;
  project: { id: number; name: string } | null;
  onProject: (project: { id: number; name: string } | null) => void;
}

export function AnalyticsControls({ period, onPeriod, project, onProject }: Props) {
  const periodLabel = useId();
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search, 250);
  // While the box shows the chosen project's name, list everything rather than that one match.
  const term = q.trim() && q !== project?.name && q !== 'All projects' ? q.trim() : null;
  const [{ data, fetching }] = useQuery({ query: AnalyticsProjectsQuery, variables: { q: term } });

  const options = useMemo(() => {
    const items = (data?.projects.items ?? []).map((p) => ({ value: String(p.project_id), label: p.name }));
    if (project && !items.some((i) => i.value === String(project.id))) items.unshift({ value: String(project.id), label: project.name });
    return [{ value: ALL, label: 'All projects' }, ...items];
  }, [data, project]);

  return (
    <Group align="flex-end" gap="md" wrap="wrap" mb="md">
      <Stack gap={4}>
        <Text component="span" id={periodLabel} size="sm" fw={500}>Period</Text>
        <SegmentedControl aria-labelledby={periodLabel} value={period} onChange={(v) => onPeriod(v as AnalyticsPeriod)}
          data={PERIODS.map((p) => ({ value: p.value, label: p.label }))} />
      </Stack>
      <Select label="Project" w={{ base: '100%', xs: 280 }} searchable nothingFoundMessage={fetching ? 'Searching…' : 'No project found'}
        data={options} value={project ? String(project.id) : ALL} allowDeselect={false}
        searchValue={search} onSearchChange={setSearch}
        onChange={(value) => {
          const chosen = options.find((o) => o.value === value);
          onProject(!chosen || chosen.value === ALL ? null : { id: Number(chosen.value), name: chosen.label });
        }} />
    </Group>
  );
}
