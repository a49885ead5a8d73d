// A table of datasets (dashboard and project page): status, live progress, records, actions.
import { Anchor, Table, Text } from '@mantine/core';
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

export function DatasetsTable({ items, label, projectNames, manageable, onChanged }: Props) {
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
              <Table.Td>
                <Text size="sm" fw={500}>{d.name}</Text>
                {projectNames && (
                  <Anchor component={Link} to={`/projects/${d.project_id}`} size="xs" display="block">
                    {projectNames.get(d.project_id) ?? `Project ${d.project_id}`}
                  </Anchor>
                )}
                <Text size="xs" c="dimmed">{d.types.map(formatLabel).join(' · ')}</Text>
              </Table.Td>
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
