// Where the records went: formats used, top projects and schemas, failure reasons, storage.
import { BarChart, DonutChart } from '@mantine/charts';
import { ColorSwatch, Group, Progress, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { formatBytes, formatCount } from '../../components/format';
import { ChartCard } from './ChartCard';
import type { AnalyticsData } from './data';

const FORMAT_COLORS = ['blue.6', 'teal.6', 'orange.6', 'grape.6', 'cyan.6', 'pink.6', 'lime.7', 'gray.6'];
const QUIET = { accessibilityLayer: false };

function shorten(name: string, max: number): string {
  return name.length > max ? `${name.slice(0, max - 1)}…` : name;
}

function swatch(color: string): string {
  const [name, shade] = color.split('.');
  return `var(--mantine-color-${name}-${shade})`;
}

function Ranked({ title, items, noun }: { title: string; items: AnalyticsData['top_projects']; noun: string }) {
  const top = Math.max(0, ...items.map((i) => i.records));
  return (
    <ChartCard title={title} description={`Top ${noun} by records generated in the period.`}
      empty={items.length === 0 ? `No ${noun} generated records in this period.` : null}
      summary={{
        caption: `${title}.`,
        columns: [noun === 'projects' ? 'Project' : 'Schema', 'Records', 'Datasets'],
        rows: items.map((i) => [i.name, formatCount(i.records), formatCount(i.datasets)]),
      }}>
      <Stack gap="sm">
        {items.map((i) => (
          <div key={i.id}>
            <Group justify="space-between" gap="sm" wrap="nowrap" mb={4}>
              <Text size="sm" truncate="end" title={i.name}>{i.name}</Text>
              <Text size="sm" fw={600} style={{ whiteSpace: 'nowrap' }}>{formatCount(i.records)}</Text>
            </Group>
            <Progress value={top ? (i.records / top) * 100 : 0} size="md" color="blue.6" />
          </div>
        ))}
      </Stack>
    </ChartCard>
  );
}

export function BreakdownCharts({ data }: { data: AnalyticsData }) {
  const formats = data.formats.map((f, i) => ({ name: f.format, value: f.datasets, color: FORMAT_COLORS[i % FORMAT_COLORS.length] ?? 'gray.6' }));

  return (
    <Stack gap="md">
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <ChartCard title="Formats used" description="Datasets that asked for each output format."
          empty={formats.length === 0 ? 'No formats in this period.' : null}
          summary={{ caption: 'Formats used by datasets.', columns: ['Format', 'Datasets'], rows: formats.map((f) => [f.name, f.value]) }}>
          <Group justify="center" gap="xl" wrap="wrap">
            <DonutChart data={formats} size={170} thickness={26} withTooltip={false} pieChartProps={QUIET}
              pieProps={{ rootTabIndex: -1 }}
              chartLabel={`${formatCount(formats.reduce((n, f) => n + f.value, 0))}`} />
            <Stack gap={6}>
              {formats.map((f) => (
                <Group key={f.name} gap="xs" wrap="nowrap">
                  <ColorSwatch color={swatch(f.color)} size={12} withShadow={false} />
                  <Text size="sm" fw={500} tt="uppercase">{f.name}</Text>
                  <Text size="sm">{formatCount(f.value)}</Text>
                </Group>
              ))}
            </Stack>
          </Group>
        </ChartCard>
        <ChartCard title="Failure reasons" description="Failed datasets by error, most frequent first.">
          {data.failure_reasons.length === 0 ? (
            <Text size="sm" py="xl" ta="center">No dataset failed in this period.</Text>
          ) : (
            <Table.ScrollContainer minWidth={300}>
              <Table>
                <Table.Thead>
                  <Table.Tr><Table.Th scope="col">Reason</Table.Th><Table.Th scope="col" ta="right">Datasets</Table.Th></Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.failure_reasons.map((r) => (
                    <Table.Tr key={r.reason}>
                      <Table.Td style={{ overflowWrap: 'anywhere' }}>{r.reason}</Table.Td>
                      <Table.Td ta="right">{formatCount(r.count)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </ChartCard>
        <Ranked title="Top projects" items={data.top_projects} noun="projects" />
        <Ranked title="Top schemas" items={data.top_schemas} noun="schemas" />
      </SimpleGrid>
      <StorageChart storage={data.storage} />
    </Stack>
  );
}

/** Storage is all time, so it is shown even for a period without datasets. */
export function StorageChart({ storage }: { storage: AnalyticsData['storage'] }) {
  const rows = storage.map((s) => ({ name: s.name, bytes: s.bytes }));
  return (
    <ChartCard title="Storage per project" description="Bytes of dataset files kept per project (all time, not only this period)."
      empty={rows.length === 0 ? 'No dataset files are stored.' : null}
      summary={{ caption: 'Storage per project.', columns: ['Project', 'Size'], rows: rows.map((s) => [s.name, formatBytes(s.bytes)]) }}>
      <BarChart h={Math.max(120, rows.length * 36 + 40)} data={rows} dataKey="name" orientation="vertical" maxBarWidth={28}
        series={[{ name: 'bytes', label: 'Size', color: 'cyan.7' }]} valueFormatter={(v) => formatBytes(v)}
        yAxisProps={{ width: 150, tickFormatter: (name: string) => shorten(name, 22) }} barChartProps={QUIET} />
    </ChartCard>
  );
}
