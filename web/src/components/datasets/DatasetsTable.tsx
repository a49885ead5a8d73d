// A table of datasets (dashboard and project page): status, live progress, records, actions.
import { Anchor, Table, Text } from '@mantine/core';
import { Link } from 'react-router';
import { formatCount, formatWhen } from '../format';
import { DatasetActions } from './DatasetActions';
import { DatasetProgress } from './DatasetProgress';
import { DatasetStatusBadge } from './DatasetStatusBadge';
import { formatLabel, type LiveDataset } from './datasetFields';

interface Props {
  items: LiveDataset[];
  /** Accessible name of the table. */
  label: string;
  /** Show a Project column, naming projects from this map (dashboard). */
  projectNames?: Map<number, string>;
  /** May the caller start/delete this dataset? */
  canManage: (dataset: LiveDataset) => boolean;
  onChanged: () => void;
}

export function DatasetsTable({ items, label, projectNames, canManage, onChanged }: Props) {
  return (
    <Table.ScrollContainer minWidth={projectNames ? 860 : 760} type="native">
      <Table verticalSpacing="xs" highlightOnHover aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Name</Table.Th>
            {projectNames && <Table.Th scope="col">Project</Table.Th>}
            <Table.Th scope="col">Status</Table.Th>
            <Table.Th scope="col" miw={160}>Progress</Table.Th>
            <Table.Th scope="col" ta="right">Records</Table.Th>
            <Table.Th scope="col">Created</Table.Th>
            <Table.Th scope="col" ta="right">Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((d) => (
            <Table.Tr key={d.dataset_id}>
              <Table.Td>
                <Text size="sm" fw={500}>{d.name}</Text>
                <Text size="xs" c="dimmed">{d.types.map(formatLabel).join(' · ')}</Text>
              </Table.Td>
              {projectNames && (
                <Table.Td>
                  <Anchor component={Link} to={`/projects/${d.project_id}`} size="sm">
                    {projectNames.get(d.project_id) ?? `Project ${d.project_id}`}
                  </Anchor>
                </Table.Td>
              )}
              <Table.Td><DatasetStatusBadge status={d.status} /></Table.Td>
              <Table.Td><DatasetProgress {...d} /></Table.Td>
              <Table.Td ta="right">
                <Text size="sm">{formatCount(d.status === 'completed' ? d.record_count : d.records_generated)}</Text>
                {d.status !== 'completed' && <Text size="xs" c="dimmed">of {formatCount(d.record_count)}</Text>}
              </Table.Td>
              <Table.Td><Text size="sm">{formatWhen(d.created_at)}</Text></Table.Td>
              <Table.Td><DatasetActions dataset={d} canManage={canManage(d)} onChanged={onChanged} /></Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
