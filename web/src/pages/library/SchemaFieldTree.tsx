// The schema's field tree (schema_repr) as a Mantine Tree: name, type, required/nullable, facets.
import { Badge, Group, Text, Tree, getTreeExpandedState, useTree } from '@mantine/core';
import { IconChevronDown, IconChevronRight } from '@tabler/icons-react';
import { useEffect, useMemo } from 'react';
import { CONTAINER_TYPES, facets, treeNodes, type ReprField } from './fieldTree';

const TYPE_COLORS: Record<string, string> = {
  string: 'blue', integer: 'teal', number: 'teal', boolean: 'orange', date: 'grape', datetime: 'grape',
  time: 'grape', object: 'gray', array: 'indigo', choice: 'yellow', ref: 'pink', any: 'gray', null: 'gray',
};

export function TypeBadge({ type }: { type: string }) {
  // the tint carries the colour; the text is the page's (teal/orange text on their tint is under 4.5:1)
  return <Badge size="xs" variant="light" color={TYPE_COLORS[type] ?? 'gray'} c="var(--mantine-color-text)" tt="none">{type}</Badge>;
}

export function SchemaFieldTree({ fields }: { fields: ReprField[] }) {
  const data = useMemo(() => treeNodes(fields), [fields]);
  const tree = useTree({ initialExpandedState: getTreeExpandedState(data, '*') });
  useEffect(() => {
    tree.setExpandedState(getTreeExpandedState(data, '*'));
  }, [data]); // eslint-disable-line react-hooks/exhaustive-deps

  if (!fields.length) return <Text c="dimmed">This record root has no fields.</Text>;
  return (
    <Tree
      data={data}
      tree={tree}
      aria-label="Field tree"
      levelOffset="lg"
      withLines
      renderNode={({ node, expanded, hasChildren, elementProps }) => {
        const field = (node as (typeof data)[number]).field;
        const details = facets(field);
        return (
          <Group gap={6} wrap="wrap" py={2} {...elementProps}>
            {hasChildren
              ? (expanded ? <IconChevronDown size={14} aria-hidden /> : <IconChevronRight size={14} aria-hidden />)
              : <span style={{ width: 14, display: 'inline-block' }} />}
            <Text size="sm" fw={CONTAINER_TYPES.has(field.type) ? 600 : 500} ff="monospace">{node.label}</Text>
            <TypeBadge type={field.type} />
            {field.required
              ? <Badge size="xs" variant="outline" color="red" tt="none">required</Badge>
              : <Badge size="xs" variant="outline" color="gray" tt="none">optional</Badge>}
            {field.nullable && <Badge size="xs" variant="outline" color="gray" tt="none">nullable</Badge>}
            {details.length > 0 && <Text size="xs" c="dimmed" style={{ wordBreak: 'break-word' }}>{details.join(' · ')}</Text>}
          </Group>
        );
      }}
    />
  );
}
