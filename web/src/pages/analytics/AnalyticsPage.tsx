// Analytics: generation over a period, for the datasets the caller may see (optionally one project).
// Lazily loaded (routes.tsx), so recharts stays out of the first bundle: import charts only here.
import { Alert, Button, Card, EmptyState, Group, Skeleton, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconChartBar } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { PageTitle } from '../../components/PageTitle';
import { graphql } from '../../gql';
import type { AnalyticsPeriod } from '../../gql/graphql';
import { ActivityCharts } from './ActivityCharts';
import { AnalyticsControls } from './AnalyticsControls';
import { BreakdownCharts, StorageChart } from './BreakdownCharts';
import { dayLabel, PERIODS } from './data';
import { StatCards } from './StatCards';

const AnalyticsQuery = graphql(`
  query Analytics($period: AnalyticsPeriod!, $projectId: Int) {
    analytics(period: $period, project_id: $projectId) {
      period_start period_end
      totals { datasets completed failed running queued records bytes }
      per_day { day status datasets records }
      formats { format datasets }
      top_projects { id name datasets records }
      top_schemas { id name datasets records }
      failure_reasons { reason count }
      throughput { day records seconds records_per_second }
      storage { project_id name bytes }
    }
  }
`);

function Loading() {
  return (
    <Stack gap="md" role="status" aria-busy="true" aria-label="Loading analytics">
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }}>
        {PERIODS.concat(PERIODS[0]!).map((p, i) => <Skeleton key={`${p.value}${i}`} height={92} radius="md" />)}
      </SimpleGrid>
      <Skeleton height={320} radius="md" />
      <SimpleGrid cols={{ base: 1, md: 2 }}><Skeleton height={300} radius="md" /><Skeleton height={300} radius="md" /></SimpleGrid>
    </Stack>
  );
}

export default function AnalyticsPage() {
  const [period, setPeriod] = useState<AnalyticsPeriod>('LAST_30_DAYS');
  const [project, setProject] = useState<{ id: number; name: string } | null>(null);
  const [{ data, fetching, error }, refetch] = useQuery({
    query: AnalyticsQuery,
    variables: { period, projectId: project?.id ?? null },
  });
  const analytics = data?.analytics;
  const days = PERIODS.find((p) => p.value === period)?.days ?? 30;
  const scope = project ? `in ${project.name}` : 'in the projects you can see';

  return (
    <>
      <PageTitle>Analytics</PageTitle>
      <AnalyticsControls period={period} onPeriod={setPeriod} project={project} onProject={setProject} />
      {analytics && (
        <Text size="sm" c="dimmed" mb="md" aria-live="polite">
          {dayLabel(analytics.period_start)} – {dayLabel(analytics.period_end)} (UTC), datasets {scope}.
          {fetching && ' Updating…'}
        </Text>
      )}
      {error && !analytics && (
        <Alert color="red" role="alert" title="Analytics could not be loaded" mb="md">
          <Text size="sm" mb="sm">{errorDetail(error)}</Text>
          <Button size="xs" variant="white" color="red" onClick={() => refetch({ requestPolicy: 'network-only' })}>Try again</Button>
        </Alert>
      )}
      {fetching && !analytics && <Loading />}
      {analytics && (
        <Stack gap="md">
          <StatCards totals={analytics.totals} />
          {analytics.totals.datasets === 0 ? (
            <Card withBorder padding="xl">
              <EmptyState icon={<IconChartBar size={28} aria-hidden />} title={`No datasets in the last ${days} days`}
                description={`Nothing was generated ${scope} in this period. Choose a longer period, or create a dataset from a project.`}>
                <EmptyState.Actions>
                  <Group justify="center">
                    {period !== 'LAST_365_DAYS' && (
                      <Button variant="default" onClick={() => setPeriod('LAST_365_DAYS')}>Show the last 365 days</Button>
                    )}
                    <Button variant="default" component={Link} to="/projects">Go to Projects</Button>
                  </Group>
                </EmptyState.Actions>
              </EmptyState>
            </Card>
          ) : (
            <>
              <ActivityCharts data={analytics} />
              <BreakdownCharts data={analytics} />
            </>
          )}
          {analytics.totals.datasets === 0 && analytics.storage.length > 0 && (
            <StorageChart storage={analytics.storage} />
          )}
        </Stack>
      )}
    </>
  );
}
