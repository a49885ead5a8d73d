// The constraint sets of one schema, with "New constraint set" for it.
import { Anchor, Button, Group, List, Stack, Text, Title } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useQuery } from 'urql';
import { formatCount } from '../../components/format';
import { graphql } from '../../gql';
import { CONSTRAINT_LIST_CONTEXT } from './queryContext';

const SchemaConstraintSetsQuery = graphql(`
  query SchemaConstraintSets($schema_id: Int!) {
    constraint_sets(schema_id: $schema_id, limit: 50) { total items { constraint_id name rules } }
  }
`);

export function SchemaConstraintSets({ schemaId, canCreate }: { schemaId: number; canCreate: boolean }) {
  const [{ data }] = useQuery({
    query: SchemaConstraintSetsQuery, variables: { schema_id: schemaId }, context: CONSTRAINT_LIST_CONTEXT,
  });
  const items = data?.constraint_sets.items ?? [];
  return (
    <Stack gap="xs">
      <Group justify="space-between">
        <Title order={2} size="h4">Constraint sets</Title>
        {canCreate && (
          <Button component={Link} to={`/library/constraints/new?schema_id=${schemaId}`} variant="light" size="xs"
            leftSection={<IconPlus size={14} aria-hidden />}>
            New constraint set
          </Button>
        )}
      </Group>
      {data && items.length === 0 && <Text size="sm" c="dimmed">None yet for this schema.</Text>}
      {items.length > 0 && (
        <List size="sm" spacing={4}>
          {items.map((c) => (
            <List.Item key={c.constraint_id}>
              <Anchor component={Link} to={`/library/constraints/${c.constraint_id}`}>{c.name}</Anchor>{' '}
              <Text span size="xs" c="dimmed">
                ({formatCount(Array.isArray(c.rules) ? c.rules.length : 0)} {Array.isArray(c.rules) && c.rules.length === 1 ? "rule" : "rules"})
              </Text>
            </List.Item>
          ))}
        </List>
      )}
      {data && data.constraint_sets.total > items.length && (
        <Anchor component={Link} to="/library?tab=constraints" size="sm">All constraint sets</Anchor>
      )}
    </Stack>
  );
}
