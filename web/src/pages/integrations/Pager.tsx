// Server-side pages (limit/offset) with named previous/next controls; nothing when one page holds all.
import { Group, Pagination } from '@mantine/core';

interface Props {
  total: number;
  pageSize: number;
  page: number;
  onChange: (page: number) => void;
  label: string;
}

export function Pager({ total, pageSize, page, onChange, label }: Props) {
  const pages = Math.ceil(total / pageSize);
  if (pages <= 1) return null;
  return (
    <Group justify="center" mt="md" component="nav" aria-label={label}>
      <Pagination total={pages} value={page} onChange={onChange}
        getControlProps={(control) => ({ 'aria-label': control === 'previous' ? 'Previous page' : control === 'next' ? 'Next page' : control })}
        getItemProps={(n) => ({ 'aria-label': `Page ${n}` })} />
    </Group>
  );
}
