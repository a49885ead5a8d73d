// One dataset: status and live progress with the time left, its inputs (seed, params, schema,
// constraint set and the rules it recorded), timing, files with sizes and checksums, the failure
// reason; Generate again (same inputs and seed) and the curl / `tdg generate` commands that do the same.
import {
  Alert, Anchor, Breadcrumbs, Button, Code, Grid, Group, Paper, SimpleGrid, Stack, Tabs, Text, Title,
} from '@mantine/core';
import { useInterval } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconRepeat } from '@tabler/icons-react';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useMutation, useQuery, useSubscription } from 'urql';
import { errorDetail, errorStatus } from '../../api/errors';
import { useSession } from '../../auth/SessionProvider';
import { DatasetActions } from '../../components/datasets/DatasetActions';
import { DatasetProgress } from '../../components/datasets/DatasetProgress';
import { DatasetStatusBadge } from '../../components/datasets/DatasetStatusBadge';
import { formatLabel, isActive, type LiveDataset } from '../../components/datasets/datasetFields';
import { fresher, POLL_MS } from '../../components/datasets/useLiveDatasets';
import { formatCount, formatWhen } from '../../components/format';
import { PageLoader } from '../../components/PageLoader';
import { PageTitle } from '../../components/PageTitle';
import { graphql } from '../../gql';
import { CommandBlock } from './CommandBlock';
import { DatasetFiles } from './DatasetFiles';
import { CoverageReportSection, InvalidRecords } from './DatasetReports';
import { curlCommand, tdgCommand } from './reproduce';
import { durationMs, etaMs, formatSpan } from './timing';

const DatasetPageQuery = graphql(`
  query DatasetPage($dataset_id: Int!) {
    dataset(dataset_id: $dataset_id) { ...LiveDatasetFields seed rules created_by invalid_records }
  }
`);

const DatasetContextQuery = graphql(`
  query DatasetContext($project_id: Int!, $schema_id: Int!) {
    project(project_id: $project_id) { project_id name my_role }
    schema(schema_id: $schema_id) { schema_id name filename }
  }
`);

const DatasetConstraintSetQuery = graphql(`
  query DatasetConstraintSet($constraint_id: Int!) { constraint_set(constraint_id: $constraint_id) { constraint_id name } }
`);

const DatasetPageUpdates = graphql(`
  subscription DatasetPageUpdates($project_id: Int) { dataset_updates(project_id: $project_id) { ...LiveDatasetFields } }
`);

const GenerateAgainMutation = graphql(`
  mutation GenerateAgain($dataset_id: Int!) { generate_again(dataset_id: $dataset_id) { dataset_id name } }
`);

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text component="dt" size="xs" c="dimmed" fw={500}>{label}</Text>
      <Text component="dd" size="sm" m={0} style={{ overflowWrap: 'anywhere' }}>{children}</Text>
    </div>
  );
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

export default function DatasetPage() {
  const datasetId = Number(useParams().datasetId);
  const valid = Number.isInteger(datasetId) && datasetId > 0;
  const navigate = useNavigate();
  const { can } = useSession();
  const context = useMemo(() => ({ additionalTypenames: ['Dataset'] }), []);
  const [{ data, fetching, error }, refetch] = useQuery({
    query: DatasetPageQuery, variables: { dataset_id: datasetId }, pause: !valid, context,
  });
  const loaded = data?.dataset;
  const [ctx] = useQuery({
    query: DatasetContextQuery,
    variables: { project_id: loaded?.project_id ?? 0, schema_id: loaded?.schema_id ?? 0 },
    pause: !loaded,
  });
  const [set] = useQuery({
    query: DatasetConstraintSetQuery,
    variables: { constraint_id: loaded?.constraint_set_id ?? 0 },
    pause: loaded?.constraint_set_id == null,
  });
  const active = loaded != null && isActive(loaded);
  // live progress: the project's updates, this dataset's kept; polled as well while it runs, so a
  // socket that cannot connect still shows it moving
  const [sub] = useSubscription(
    { query: DatasetPageUpdates, variables: { project_id: loaded?.project_id ?? null }, pause: !active },
    (prev: LiveDataset | null | undefined, event): LiveDataset | null => {
      const d = event.dataset_updates;
      if (d.dataset_id !== datasetId) return prev ?? null;
      return prev ? fresher(prev, d) : d;
    },
  );
  const update = sub.data ?? null;
  const dataset = loaded && update ? { ...loaded, ...fresher<LiveDataset>(loaded, update) } : loaded;
  const running = dataset != null && isActive(dataset);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  useEffect(() => {
    if (!running) return undefined;
    const id = window.setInterval(() => refetch({ requestPolicy: 'network-only' }), POLL_MS);
    return () => window.clearInterval(id);
  }, [running, refetch]);
  // the live update says completed before its files are read: read them once it has
  useEffect(() => {
    if (loaded && isActive(loaded) && update && !isActive(update)) refetch({ requestPolicy: 'network-only' });
  }, [loaded, update, refetch]);
  const [now, setNow] = useState(() => Date.now());
  const clock = useInterval(() => setNow(Date.now()), 1000);
  useEffect(() => {
    if (running) clock.start();
    else clock.stop();
    return clock.stop;
  }, [running, clock]);
  const [again, generateAgain] = useMutation(GenerateAgainMutation);

  if (!valid || (error && !loaded)) {
    const missing = !valid || errorStatus(error) === 404;
    return (
      <Stack>
        <PageTitle>{missing ? 'Dataset not found' : 'Dataset'}</PageTitle>
        <Alert color={missing ? 'gray' : 'red'} role="alert">
          {missing ? 'This dataset does not exist, or you cannot see it.' : errorDetail(error)}
        </Alert>
        <Anchor component={Link} to="/projects">Back to the projects</Anchor>
      </Stack>
    );
  }
  if (!dataset) return fetching ? <PageLoader /> : null;

  const project = ctx.data?.project;
  const schema = ctx.data?.schema;
  const setName = set.data?.constraint_set.name;
  const params = (dataset.params && typeof dataset.params === 'object' ? dataset.params : {}) as Record<string, unknown>;
  const rules = Array.isArray(dataset.rules) ? dataset.rules : [];
  const mayCreate = project != null && can('dataset.create', project.my_role);
  const duration = durationMs(dataset.started_at, dataset.finished_at, now);
  const eta = dataset.status === 'running' ? etaMs(dataset.started_at, dataset.progress, now) : null;
  const schemaFile = schema?.filename || `${schema?.name ?? 'schema'}.json`;
  const locale = Array.isArray(params.locales) ? (params.locales as string[]).join(', ') : String(params.locale ?? 'en_US');

  const onAgain = async () => {
    const result = await generateAgain({ dataset_id: dataset.dataset_id });
    const made = result.data?.generate_again;
    if (made) {
      notifications.show({ color: 'green', message: `Dataset "${made.name}" created with the same inputs and seed.` });
      navigate(`/datasets/${made.dataset_id}`);
    } else {
      notifications.show({ color: 'red', title: 'Not generated again', message: errorDetail(result.error) ?? 'Something went wrong.' });
    }
  };

  return (
    <Stack gap="md">
      <Breadcrumbs>
        <Anchor component={Link} to="/projects" size="sm">Projects</Anchor>
        <Anchor component={Link} to={`/projects/${dataset.project_id}`} size="sm">
          {project?.name ?? `Project ${dataset.project_id}`}
        </Anchor>
        <Text size="sm">{dataset.name}</Text>
      </Breadcrumbs>
      <PageTitle
        actions={mayCreate ? (
          <Button leftSection={<IconRepeat size={16} aria-hidden />} onClick={onAgain} loading={again.fetching}>
            Generate again
          </Button>
        ) : undefined}
      >
        {dataset.name}
      </PageTitle>

      <Paper withBorder p="md" radius="md" component="section" aria-labelledby="status-title">
        <Stack gap="sm">
          <Group justify="space-between" wrap="wrap" gap="sm">
            <Group gap="sm">
              <Title order={2} size="h4" id="status-title">Status</Title>
              <DatasetStatusBadge status={dataset.status} />
            </Group>
            <DatasetActions dataset={dataset} manageable onChanged={reload} hideError />
          </Group>
          <DatasetProgress {...dataset} withCounts />
          <Text size="sm" aria-live="polite">
            {dataset.status === 'queued' && (dataset.viewer_can.start ? 'Waiting to start.' : 'Queued.')}
            {dataset.status === 'running' && (eta != null ? `About ${formatSpan(eta)} left.` : 'Estimating the time left…')}
            {!running && duration != null && `Took ${formatSpan(duration)}.`}
          </Text>
          {dataset.status === 'failed' && (
            <Alert color="red" variant="light" title="Generation failed">
              <Text size="sm" style={{ overflowWrap: 'anywhere' }}>{dataset.error ?? 'No reason was recorded.'}</Text>
            </Alert>
          )}
        </Stack>
      </Paper>

      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Paper withBorder p="md" radius="md" component="section" aria-labelledby="inputs-title" h="100%">
            <Title order={2} size="h4" id="inputs-title" mb="sm">Inputs</Title>
            <SimpleGrid component="dl" cols={2} spacing="sm" verticalSpacing="sm" m={0}>
              <Fact label="Seed"><Text span ff="monospace" size="sm">{dataset.seed ?? '—'}</Text></Fact>
              <Fact label="Records">{formatCount(dataset.record_count)}</Fact>
              <Fact label="Schema">
                <Anchor component={Link} to={`/library/schemas/${dataset.schema_id}`} inherit>
                  {schema?.name ?? `Schema ${dataset.schema_id}`}
                </Anchor>
              </Fact>
              <Fact label="Constraint set">
                {dataset.constraint_set_id == null ? 'None' : (
                  <Anchor component={Link} to={`/library/constraints/${dataset.constraint_set_id}`} inherit>
                    {setName ?? `Constraint set ${dataset.constraint_set_id}`}
                  </Anchor>
                )}
              </Fact>
              <Fact label="Formats">{dataset.types.map(formatLabel).join(', ')}</Fact>
              <Fact label="Locale">{locale}</Fact>
              <Fact label="Record root">{typeof params.root === 'string' ? params.root : 'Default'}</Fact>
              <Fact label="Reference date">
                None: dates and times depend on the seed alone
              </Fact>
            </SimpleGrid>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Paper withBorder p="md" radius="md" component="section" aria-labelledby="timing-title" h="100%">
            <Title order={2} size="h4" id="timing-title" mb="sm">Timing</Title>
            <SimpleGrid component="dl" cols={2} spacing="sm" verticalSpacing="sm" m={0}>
              <Fact label="Created">{formatWhen(dataset.created_at)}</Fact>
              <Fact label="Started">{formatWhen(dataset.started_at)}</Fact>
              <Fact label="Finished">{formatWhen(dataset.finished_at)}</Fact>
              <Fact label="Duration">{duration == null ? '—' : formatSpan(duration)}</Fact>
              <Fact label="Attempt">{dataset.attempt || '—'}</Fact>
              <Fact label="Records written">{formatCount(dataset.records_generated)}</Fact>
            </SimpleGrid>
          </Paper>
        </Grid.Col>
      </Grid>

      <Paper withBorder p="md" radius="md" component="section" aria-labelledby="files-title">
        <Title order={2} size="h4" id="files-title" mb="sm">Files</Title>
        <DatasetFiles files={dataset.files} />
      </Paper>

      {(loaded?.invalid_records ?? 0) > 0 && (
        <InvalidRecords datasetId={dataset.dataset_id} count={loaded?.invalid_records ?? 0} completed={dataset.status === 'completed'} />
      )}
      {typeof params.coverage === 'string' && (
        <CoverageReportSection datasetId={dataset.dataset_id} completed={dataset.status === 'completed'} />
      )}

      <Paper withBorder p="md" radius="md" component="section" aria-labelledby="params-title">
        <Title order={2} size="h4" id="params-title" mb="sm">Parameters and rules</Title>
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
          <div>
            <Text size="sm" fw={500} mb={4}>Params</Text>
            <Code block role="region" aria-label="Params" tabIndex={0} style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {json({ ...params, ...(dataset.seed != null ? { seed: '__seed__' } : {}) }).replace('"__seed__"', dataset.seed ?? '')}
            </Code>
          </div>
          <div>
            <Text size="sm" fw={500} mb={4}>
              Rules recorded at creation ({rules.length})
            </Text>
            <Code block role="region" aria-label="Rules" tabIndex={0} style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
              {rules.length ? json(rules) : 'No rules'}
            </Code>
          </div>
        </SimpleGrid>
      </Paper>

      <Paper withBorder p="md" radius="md" component="section" aria-labelledby="reproduce-title">
        <Title order={2} size="h4" id="reproduce-title" mb="sm">Make it again elsewhere</Title>
        <Tabs defaultValue="curl" keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="curl">curl</Tabs.Tab>
            <Tabs.Tab value="tdg">tdg generate</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="curl" pt="sm">
            <CommandBlock label="Copy as curl" command={curlCommand(dataset, window.location.origin)}
              hint="Creates the same dataset through the REST API with an API token in TDG_TOKEN; the constraint set's rules as they are now apply." />
          </Tabs.Panel>
          <Tabs.Panel value="tdg" pt="sm">
            <CommandBlock label="Copy as tdg generate" command={tdgCommand(dataset, schemaFile)}
              hint={`Generates the same records offline, one run per format, from the schema file (${schemaFile}) and the rules this dataset recorded.`} />
          </Tabs.Panel>
        </Tabs>
      </Paper>
    </Stack>
  );
}
