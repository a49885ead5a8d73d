// The constraint-set list, paginated on the server.
import { Alert, Anchor, Button, Group, Pagination, Skeleton, Stack, Table, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { formatCount, formatWhen } from '../../components/format';
import { graphql } from '../../gql';
import { CONSTRAINT_LIST_CONTEXT } from './queryContext';
import { pagerControlProps } from './pagination';
import { SchemaName } from './SchemaName';

const ConstraintSetsQuery = graphql(`
  query LibraryConstraintSets($limit: Int!, $offset: Int!) {
    constraint_sets(limit: $limit, offset: $offset) {
      total
      items { constraint_id name description schema_id rules updated_at }
    }
  }
`);

const PAGE = 20;

export function ConstraintSetsTab({ canCreate }: { canCreate: boolean }) {
  const [page, setPage] = useState(1);
  const [{ data, fetching, error }] = useQuery({
    query: ConstraintSetsQuery,
    variables: { limit: PAGE, offset: (page - 1) * PAGE },
    context: CONSTRAINT_LIST_CONTEXT,
  });
  const rows = data?.constraint_sets.items ?? [];
  const total = data?.constraint_sets.total ?? 0;

  return (
    <Stack gap="sm">
      {canCreate && (
        <Group>
          <Button component={Link} to="/library/constraints/new" leftSection={<IconPlus size={16} aria-hidden />}>
            New constraint set
          </Button>
        </Group>
      )}
      {error && <Alert color="red" role="alert" title="Could not load constraint sets">{errorDetail(error)}</Alert>}
      {!data && fetching && <Skeleton h={160} role="status" aria-label="Loading constraint sets" />}
      {data && rows.length === 0 && (
        <Text c="dimmed" py="md">
          No constraint sets yet. A constraint set narrows the values generated for a schema’s fields
          {canCreate ? ': create one with “New constraint set”, or from a schema’s page.' : '.'}
        </Text>
      )}
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover verticalSpacing="xs" aria-label="Constraint sets">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Name</Table.Th>
                <Table.Th scope="col">Schema</Table.Th>
                <Table.Th scope="col" ta="right">Rules</Table.Th>
                <Table.Th scope="col">Updated</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((c) => (
                <Table.Tr key={c.constraint_id}>
                  <Table.Th scope="row" fw={500}>
                    <Anchor component={Link} to={`/library/constraints/${c.constraint_id}`}>{c.name}</Anchor>
                    {c.description && <Text size="xs" c="dimmed" lineClamp={1}>{c.description}</Text>}
                  </Table.Th>
                  <Table.Td><SchemaName schemaId={c.schema_id} link /></Table.Td>
                  <Table.Td ta="right">{formatCount(Array.isArray(c.rules) ? c.rules.length : 0)}</Table.Td>
                  <Table.Td>{formatWhen(c.updated_at)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {total > PAGE && (
        <Group justify="space-between">
          <Text size="sm" c="dimmed">{formatCount(total)} constraint sets</Text>
          <Pagination total={Math.ceil(total / PAGE)} value={page} onChange={setPage} size="sm"
            getControlProps={pagerControlProps} />
        </Group>
      )}
    </Stack>
  );
}
