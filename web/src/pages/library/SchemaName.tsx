// A schema's name from its id (constraint sets carry only schema_id); urql's cache answers repeats.
import { Anchor, Text } from '@mantine/core';
import { Link } from 'react-router';
import { useQuery } from 'urql';
import { graphql } from '../../gql';

const SchemaNameQuery = graphql(`
  query SchemaName($schema_id: Int!) { schema(schema_id: $schema_id) { schema_id name } }
`);

export function SchemaName({ schemaId, link = false }: { schemaId: number; link?: boolean }) {
  const [{ data, error }] = useQuery({ query: SchemaNameQuery, variables: { schema_id: schemaId }, requestPolicy: 'cache-first' });
  const name = data?.schema.name ?? (error ? `Schema ${schemaId}` : '…');
  if (!link || error) return <Text span size="sm">{name}</Text>;
  return <Anchor component={Link} to={`/library/schemas/${schemaId}`} size="sm">{name}</Anchor>;
}
