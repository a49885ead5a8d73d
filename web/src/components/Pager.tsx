// "21–40 of 312 users" and the page buttons under every server-paginated list.
import { Group, Pagination, Text } from '@mantine/core';

interface Props {
  page: number;
  pageSize: number;
  total: number;
  noun: string;
  onChange: (page: number) => void;
}

export function Pager({ page, pageSize, total, noun, onChange }: Props) {
  if (total === 0) return null;
  return (
    <Group justify="space-between" wrap="wrap" gap="sm" mt="sm">
      <Text size="sm" c="dimmed">
        {((page - 1) * pageSize + 1).toLocaleString()}–{Math.min(page * pageSize, total).toLocaleString()} of{' '}
        {total.toLocaleString()} {noun}
      </Text>
      {total > pageSize && (
        <Pagination total={Math.ceil(total / pageSize)} value={page} onChange={onChange} size="sm"
          aria-label={`Pages of ${noun}`}
          getControlProps={(control) => ({
            'aria-label': { first: 'First page', last: 'Last page', previous: 'Previous page', next: 'Next page' }[control],
          })}
          getItemProps={(p) => ({ 'aria-label': `Page ${p}` })} />
      )}
    </Group>
  );
}
