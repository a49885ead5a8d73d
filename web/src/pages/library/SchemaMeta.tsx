// A schema's metadata as a description list.
import { Box, SimpleGrid, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { formatBytes, formatCount, formatWhen } from '../../components/format';

interface Meta {
  type: string;
  version: string;
  filename?: string | null;
  size_bytes: number;
  sha256: string;
  roots: string[];
  field_count: number;
  created_at: string;
}

function Item({ term, children, wide = false }: { term: string; children: ReactNode; wide?: boolean }) {
  return (
    <Box style={wide ? { gridColumn: '1 / -1' } : undefined}>
      <Text component="dt" size="xs" c="dimmed" tt="uppercase" fw={600}>{term}</Text>
      <Text component="dd" size="sm" m={0} style={{ overflowWrap: 'anywhere' }}>{children}</Text>
    </Box>
  );
}

export function SchemaMeta({ schema }: { schema: Meta }) {
  return (
    <SimpleGrid component="dl" cols={2} spacing="sm" verticalSpacing="xs" m={0}>
      <Item term="Type">{schema.type === 'xsd' ? 'XSD' : 'JSON Schema'}</Item>
      <Item term="Version">{schema.version}</Item>
      <Item term="File name">{schema.filename ?? '—'}</Item>
      <Item term="Size">{formatBytes(schema.size_bytes)}</Item>
      <Item term="Fields">{formatCount(schema.field_count)}</Item>
      <Item term="Roots">{schema.roots.join(', ')}</Item>
      <Item term="Created">{formatWhen(schema.created_at)}</Item>
      <Item term="SHA-256" wide><Text span ff="monospace" size="xs">{schema.sha256}</Text></Item>
    </SimpleGrid>
  );
}
