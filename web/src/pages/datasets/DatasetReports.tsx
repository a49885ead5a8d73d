// Negative and coverage data on the dataset page: the invalid records' labels as a paged table, and
// the coverage report (covered of total, the unreachable targets and why).
import { Alert, Badge, Box, Group, Loader, Paper, Progress, Stack, Table, Text, Title, useMatches } from '@mantine/core';
import { useState } from 'react';
import { Pager } from '../../components/Pager';
import { formatCount } from '../../components/format';
import type { InvalidLabel as Label } from '../../components/preview/records';
import { parseCoverage, parseLabels, useDataFile, type Loaded } from './reports';

const PAGE_SIZE = 20;

function Loading<T>({ loaded, what }: { loaded: Loaded<T> | null; what: string }) {
  if (!loaded || loaded.state === 'loading') {
    return <Group gap="xs"><Loader size="xs" aria-hidden /><Text size="sm" c="dimmed">Reading the {what}…</Text></Group>;
  }
  if (loaded.state === 'error') {
    return <Alert color="yellow" variant="light" title={`No ${what}`}>{loaded.message}</Alert>;
  }
  return null;
}

function cell(text: string) {
  return <Text span size="xs" ff="monospace" style={{ whiteSpace: 'nowrap' }}>{text}</Text>;
}

// long pointers wrap so the Why column stays in view at desktop width
function wrappingCell(text: string) {
  return <Text span size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>{text}</Text>;
}

function ruleText(l: Label): string {
  return l.rule == null ? 'Schema' : `Rule ${l.rule + 1}`;
}

/** One label as a card, for phones (the table's columns as lines; long pointers wrap). */
function LabelCard({ label: l }: { label: Label }) {
  const wrap = { overflowWrap: 'anywhere' as const };
  return (
    <Paper component="li" withBorder p="sm" radius="md">
      <Group gap={6} justify="space-between" wrap="nowrap">
        <Text size="sm" fw={600}>Record {formatCount(l.record + 1)}</Text>
        <Text size="xs" ff="monospace" fw={600} c="red.9">{l.keyword}</Text>
      </Group>
      <Text size="xs" ff="monospace" style={wrap}><Text span size="xs" c="dimmed" ff="text">Pointer </Text>{l.pointer || '/'}</Text>
      <Text size="xs" ff="monospace" style={wrap}>
        <Text span size="xs" c="dimmed" ff="text">Schema pointer </Text>{l.schema_pointer || '/'}
      </Text>
      <Text size="xs" c="dimmed">{l.rule == null ? 'Breaks the schema' : `Breaks rule ${l.rule + 1}`}</Text>
      <Text size="sm" style={wrap}>{l.detail}</Text>
    </Paper>
  );
}

export function InvalidRecords({ datasetId, count, completed }: { datasetId: number; count: number; completed: boolean }) {
  const loaded = useDataFile(datasetId, 'labels', completed, parseLabels);
  const compact = useMatches({ base: true, sm: false });
  const [page, setPage] = useState(1);
  const labels = loaded?.state === 'done' ? loaded.value : [];
  const shown = labels.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="invalid-title">
      <Group gap="sm" mb="sm">
        <Title order={2} size="h4" id="invalid-title">Invalid records</Title>
        <Badge color="red.8" variant="filled" tt="none">{formatCount(count)} invalid</Badge>
      </Group>
      <Text size="sm" mb="sm">
        Each breaks one constraint, and its label says which; the same labels download as NDJSON from GET /api/v1/data/{datasetId}?format=labels.
      </Text>
      {!completed ? <Text size="sm" c="dimmed">The labels are read once the dataset has completed.</Text> : (
        <>
          <Loading loaded={loaded} what="labels" />
          {loaded?.state === 'done' && (
            <>
              {compact ? (
                <Stack component="ul" gap="xs" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Invalid record labels">
                  {shown.map((l) => <LabelCard key={`${l.record}-${l.pointer}-${l.keyword}`} label={l} />)}
                </Stack>
              ) : (
                <Box style={{ overflowX: 'auto' }} tabIndex={0} role="region" aria-label="Labels, scrollable">
                <Table withTableBorder striped verticalSpacing={4} horizontalSpacing="xs" aria-label="Invalid record labels"
                  style={{ minWidth: 640 }}>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th scope="col">Record</Table.Th>
                      <Table.Th scope="col">Pointer</Table.Th>
                      <Table.Th scope="col">Keyword</Table.Th>
                      <Table.Th scope="col">Schema pointer</Table.Th>
                      <Table.Th scope="col">Rule</Table.Th>
                      <Table.Th scope="col">Why</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {shown.map((l) => (
                      <Table.Tr key={`${l.record}-${l.pointer}-${l.keyword}`}>
                        <Table.Td>{formatCount(l.record + 1)}</Table.Td>
                        <Table.Td miw={120}>{wrappingCell(l.pointer || '/')}</Table.Td>
                        <Table.Td>{cell(l.keyword)}</Table.Td>
                        <Table.Td miw={180}>{wrappingCell(l.schema_pointer || '/')}</Table.Td>
                        <Table.Td style={{ whiteSpace: 'nowrap' }}>{ruleText(l)}</Table.Td>
                        <Table.Td miw={160}><Text span size="xs">{l.detail}</Text></Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
                </Box>
              )}
              <Pager page={page} pageSize={PAGE_SIZE} total={labels.length} noun="labels" onChange={setPage} />
            </>
          )}
        </>
      )}
    </Paper>
  );
}

function valueText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function CoverageReportSection({ datasetId, completed }: { datasetId: number; completed: boolean }) {
  const loaded = useDataFile(datasetId, 'coverage', completed, (body) => parseCoverage(JSON.parse(body)));
  const report = loaded?.state === 'done' ? loaded.value : null;
  const unreachable = report ? report.targets.filter((t) => t.record == null) : [];
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="coverage-title">
      <Title order={2} size="h4" id="coverage-title" mb="sm">Coverage</Title>
      {!completed ? <Text size="sm" c="dimmed">The report is read once the dataset has completed.</Text> : (
        <>
          <Loading loaded={loaded} what="coverage report" />
          {loaded?.state === 'done' && !report && <Alert color="yellow" variant="light" title="No coverage report">The report could not be read.</Alert>}
          {report && (
            <>
              <Text size="sm" mb={6}>
                <b>{formatCount(report.covered)} of {formatCount(report.total)}</b> targets covered by the first{' '}
                {formatCount(report.records)} records ({report.mode === 'pairwise' ? 'pairwise' : 'each target'}).
              </Text>
              <Progress value={report.total ? (100 * report.covered) / report.total : 0} color="teal" size="sm"
                aria-label="Targets covered" mb="sm" />
              {unreachable.length === 0 ? <Text size="sm">Every target is covered.</Text> : (
                <Box style={{ overflowX: 'auto' }} tabIndex={0} role="region" aria-label="Unreachable targets, scrollable">
                  <Table withTableBorder striped verticalSpacing={4} horizontalSpacing="xs" style={{ minWidth: 560 }}
                    aria-label="Unreachable targets">
                    <Table.Thead>
                      <Table.Tr>
                        <Table.Th scope="col">Pointer</Table.Th>
                        <Table.Th scope="col">Kind</Table.Th>
                        <Table.Th scope="col">Value</Table.Th>
                        <Table.Th scope="col">Why unreachable</Table.Th>
                      </Table.Tr>
                    </Table.Thead>
                    <Table.Tbody>
                      {unreachable.map((t, i) => (
                        <Table.Tr key={`${t.pointer}-${t.kind}-${i}`}>
                          <Table.Td>{cell(t.pointer || '/')}</Table.Td>
                          <Table.Td>{t.kind}</Table.Td>
                          <Table.Td>{cell(valueText(t.value))}</Table.Td>
                          <Table.Td><Text span size="xs">{t.reason ?? 'No reason was given.'}</Text></Table.Td>
                        </Table.Tr>
                      ))}
                    </Table.Tbody>
                  </Table>
                </Box>
              )}
            </>
          )}
        </>
      )}
    </Paper>
  );
}
