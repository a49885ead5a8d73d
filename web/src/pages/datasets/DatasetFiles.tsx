// A dataset's files: format, part, records, size and SHA-256 (to check a download against); a table
// on wide screens, a list of entries on phones (a checksum is wider than a phone).
import { Paper, Stack, Table, Text, useMatches } from '@mantine/core';
import { formatBytes, formatCount } from '../../components/format';
import { formatLabel, type LiveDataset } from '../../components/datasets/datasetFields';

type File = LiveDataset['files'][number];

function part(f: File, files: File[]): string {
  return files.filter((g) => g.format === f.format).length > 1 ? `file ${f.file_index + 1}` : '—';
}

export function DatasetFiles({ files }: { files: File[] }) {
  const compact = useMatches({ base: true, sm: false });
  const sorted = [...files].sort((a, b) => a.format.localeCompare(b.format) || a.file_index - b.file_index);
  if (sorted.length === 0) return <Text size="sm" c="dimmed">No file written yet.</Text>;
  if (compact) {
    return (
      <Stack component="ul" gap="xs" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Files">
        {sorted.map((f) => (
          <Paper key={`${f.format}-${f.file_index}`} component="li" withBorder p="sm" radius="md">
            <Text size="sm" fw={500}>
              {formatLabel(f.format)}{part(f, sorted) === '—' ? '' : ` ${part(f, sorted)}`} · {formatBytes(f.size_bytes)}
            </Text>
            <Text size="xs" c="dimmed">{formatCount(f.records)} records</Text>
            <Text size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>SHA-256 {f.sha256}</Text>
          </Paper>
        ))}
      </Stack>
    );
  }
  return (
    <Table.ScrollContainer minWidth={640} type="native">
      <Table verticalSpacing="xs" aria-label="Files">
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Format</Table.Th>
            <Table.Th scope="col">Part</Table.Th>
            <Table.Th scope="col" ta="right">Records</Table.Th>
            <Table.Th scope="col" ta="right">Size</Table.Th>
            <Table.Th scope="col">SHA-256</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {sorted.map((f) => (
            <Table.Tr key={`${f.format}-${f.file_index}`}>
              <Table.Td>{formatLabel(f.format)}</Table.Td>
              <Table.Td>{part(f, sorted)}</Table.Td>
              <Table.Td ta="right">{formatCount(f.records)}</Table.Td>
              <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }}>{formatBytes(f.size_bytes)}</Table.Td>
              <Table.Td><Text size="xs" ff="monospace" style={{ overflowWrap: 'anywhere' }}>{f.sha256}</Text></Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
