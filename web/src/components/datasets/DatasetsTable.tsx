// A table of datasets (dashboard and project page): status, live progress, records, actions; a list
// of cards at phone width, where five columns put Download off-screen (as the admin lists do).
import { Anchor, Group, Paper, Stack, Table, Text, useMatches } from '@mantine/core';
import { Link } from 'react-router';
import { formatWhen } from '../format';
import { DatasetActions } from './DatasetActions';
import { DatasetProgress } from './DatasetProgress';
import { DatasetStatusBadge } from './DatasetStatusBadge';
import { formatLabel, type LiveDataset } from './datasetFields';

interface Props {
  items: LiveDataset[];
  /** Accessible name of the table. */
  label: string;
  /** Name each dataset's project (under its name) from this map (dashboard). */
  projectNames?: Map<number, string>;
  /** Offer start, cancel and delete (as each dataset's `viewer_can` allows)? */
  manageable: boolean;
  onChanged: () => void;
}

function DatasetName({ d, projectNames }: { d: LiveDataset; projectNames?: Map<number, string> }) {
  return (
    <>
      <Anchor component={Link} to={`/datasets/${d.dataset_id}`} size="sm" fw={500} display="block"
        style={{ overflowWrap: 'anywhere' }}>
        {d.name}
      </Anchor>
      {projectNames && (
        <Anchor component={Link} to={`/projects/${d.project_id}`} size="xs" display="block">
          {projectNames.get(d.project_id) ?? `Project ${d.project_id}`}
        </Anchor>
      )}
      <Text size="xs" c="dimmed">{d.types.map(formatLabel).join(' · ')}</Text>
    </>
  );
}

export function DatasetsTable({ items, label, projectNames, manageable, onChanged }: Props) {
  const compact = useMatches({ base: true, sm: false });
  if (compact) {
    return (
      <Stack component="ul" gap="xs" p={0} m={0} style={{ listStyle: 'none' }} aria-label={label}>
        {items.map((d) => (
          <Paper key={d.dataset_id} component="li" withBorder p="sm" radius="md">
            <Group justify="space-between" align="flex-start" wrap="nowrap">
              <Stack gap={0} style={{ minWidth: 0 }}><DatasetName d={d} projectNames={projectNames} /></Stack>
              <DatasetStatusBadge status={d.status} />
            </Group>
            <DatasetProgress {...d} withCounts />
            <Group justify="space-between" mt="xs" gap="xs">
              <Text size="xs" c="dimmed">Created {formatWhen(d.created_at)}</Text>
              <DatasetActions dataset={d} manageable={manageable} onChanged={onChanged} />
            </Group>
          </Paper>
        ))}
      </Stack>
    );
  }
  return (
    <Table.ScrollContainer minWidth={640} type="native">
      <Table verticalSpacing="xs" highlightOnHover aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Name</Table.Th>
            <Table.Th scope="col">Status</Table.Th>
            <Table.Th scope="col">Progress</Table.Th>
            <Table.Th scope="col">Created</Table.Th>
            <Table.Th scope="col" ta="right">Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((d) => (
            <Table.Tr key={d.dataset_id}>
              <Table.Td><DatasetName d={d} projectNames={projectNames} /></Table.Td>
              <Table.Td><DatasetStatusBadge status={d.status} /></Table.Td>
              <Table.Td miw={170}><DatasetProgress {...d} withCounts /></Table.Td>
              <Table.Td><Text size="sm">{formatWhen(d.created_at)}</Text></Table.Td>
              <Table.Td><DatasetActions dataset={d} manageable={manageable} onChanged={onChanged} /></Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
