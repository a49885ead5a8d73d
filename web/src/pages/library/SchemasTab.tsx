// The schema list: searched and paginated on the server.
import { Alert, Anchor, Group, Pagination, Skeleton, Stack, Table, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { formatBytes, formatCount, formatWhen } from '../../components/format';
import { graphql } from '../../gql';
import { SCHEMA_LIST_CONTEXT } from './queryContext';
import { SatisfiableBadge } from './SatisfiableBadge';
import { pagerControlProps } from './pagination';

const SchemasQuery = graphql(`
  query LibrarySchemas($q: String, $limit: Int!, $offset: Int!) {
    schemas(q: $q, limit: $limit, offset: $offset) {
      total
      items { schema_id name type version roots field_count size_bytes created_at satisfiable }
    }
  }
`);

const PAGE = 20;

export function SchemasTab({ canUpload, onUpload }: { canUpload: boolean; onUpload: () => void }) {
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search.trim(), 300);
  const [page, setPage] = useState(1);
  const [{ data, fetching, error }] = useQuery({
    query: SchemasQuery,
    variables: { q: q || null, limit: PAGE, offset: (page - 1) * PAGE },
    context: SCHEMA_LIST_CONTEXT,
  });
  const rows = data?.schemas.items ?? [];
  const total = data?.schemas.total ?? 0;

  return (
    <Stack gap="sm">
      <TextInput label="Search schemas" placeholder="Name" leftSection={<IconSearch size={16} aria-hidden />}
        value={search} onChange={(e) => { setSearch(e.currentTarget.value); setPage(1); }} maw={360} />
      {error && <Alert color="red" role="alert" title="Could not load schemas">{errorDetail(error)}</Alert>}
      {!data && fetching && <Skeleton h={160} role="status" aria-label="Loading schemas" />}
      {data && rows.length === 0 && (
        <Text c="dimmed" py="md">
          {q ? `No schema matches “${q}”.` : 'No schemas yet. '}
          {!q && canUpload && <Anchor component="button" type="button" onClick={onUpload}>Upload the first one.</Anchor>}
        </Text>
      )}
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={760}>
          <Table striped highlightOnHover verticalSpacing="xs" aria-label="Schemas">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Name</Table.Th>
                <Table.Th scope="col">Type</Table.Th>
                <Table.Th scope="col">Version</Table.Th>
                <Table.Th scope="col" ta="right">Roots</Table.Th>
                <Table.Th scope="col" ta="right">Fields</Table.Th>
                <Table.Th scope="col" ta="right">Size</Table.Th>
                <Table.Th scope="col">Created</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((s) => (
                <Table.Tr key={s.schema_id}>
                  <Table.Th scope="row" fw={500}>
                    <Group gap={6} wrap="nowrap">
                      <Anchor component={Link} to={`/library/schemas/${s.schema_id}`}>{s.name}</Anchor>
                      <SatisfiableBadge satisfiable={s.satisfiable} />
                    </Group>
                  </Table.Th>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{s.type === 'xsd' ? 'XSD' : 'JSON Schema'}</Table.Td>
                  <Table.Td>{s.version}</Table.Td>
                  <Table.Td ta="right">{formatCount(s.roots.length)}</Table.Td>
                  <Table.Td ta="right">{formatCount(s.field_count)}</Table.Td>
                  <Table.Td ta="right">{formatBytes(s.size_bytes)}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatWhen(s.created_at)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {total > PAGE && (
        <Group justify="space-between">
          <Text size="sm" c="dimmed">{formatCount(total)} schemas</Text>
          <Pagination total={Math.ceil(total / PAGE)} value={page} onChange={setPage} size="sm"
            getControlProps={pagerControlProps} />
        </Group>
      )}
    </Stack>
  );
}
