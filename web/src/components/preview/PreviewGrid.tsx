// Preview records in a table: a column per field (nested ones dotted), its schema type in the
// header, an array's items behind a button that opens them as a table of their own under the row.
import { Badge, Button, Table, Text, Tooltip, VisuallyHidden } from '@mantine/core';
import { IconChevronDown, IconChevronRight } from '@tabler/icons-react';
import { Fragment, useMemo, useState } from 'react';
import { cellText, labelText, toGrid, type Cell, type InvalidLabel } from './records';

interface Props {
  records: unknown[];
  /** Field path (dotted, as the schema names it) -> its type for the headers. */
  types: Map<string, string>;
  /** The table's accessible name. */
  label: string;
  /** Path of the array these records are the items of ('' at the top). */
  prefix?: string;
  /** Invalid records' labels by row index (negative data); top level only. */
  labels?: Map<number, InvalidLabel[]>;
}

function InvalidBadge({ labels }: { labels: InvalidLabel[] }) {
  const text = labels.map(labelText).join('; ');
  return (
    <Tooltip label={text} multiline w={320} withArrow>
      <Badge size="xs" color="red.8" variant="filled" tt="none" ml={4}>
        <VisuallyHidden>Invalid record, </VisuallyHidden>
        <span aria-hidden>{labels.map((l) => l.keyword).join(', ')}</span>
        <VisuallyHidden>{text}</VisuallyHidden>
      </Badge>
    </Tooltip>
  );
}

function CellView({ cell, open, onToggle, column }: { cell: Cell | undefined; open: boolean; onToggle: () => void; column: string }) {
  if (!cell || cell.kind === 'missing') return <Text span size="xs" c="dimmed">—</Text>;
  if (cell.kind === 'array') {
    const n = cell.items.length;
    return (
      <Button size="compact-xs" variant="subtle" onClick={onToggle} aria-expanded={open}
        leftSection={open ? <IconChevronDown size={12} aria-hidden /> : <IconChevronRight size={12} aria-hidden />}
        aria-label={`${column}: ${n} ${n === 1 ? 'item' : 'items'}`}>
        {n} {n === 1 ? 'item' : 'items'}
      </Button>
    );
  }
  const text = cellText(cell.value);
  return (
    <Text span size="xs" ff={typeof cell.value === 'string' ? undefined : 'monospace'} c={cell.value === null ? 'dimmed' : undefined}
      style={{ whiteSpace: 'nowrap', display: 'inline-block', maxWidth: 280, overflow: 'hidden', textOverflow: 'ellipsis' }}
      title={text.length > 40 ? text : undefined}>
      {text}
    </Text>
  );
}

export function PreviewGrid({ records, types, label, prefix = '', labels }: Props) {
  const grid = useMemo(() => toGrid(records), [records]);
  const [open, setOpen] = useState<Set<string>>(() => new Set());
  const toggle = (key: string) => setOpen((prev) => {
    const next = new Set(prev);
    if (next.has(key)) next.delete(key);
    else next.add(key);
    return next;
  });
  const full = (column: string) => (prefix ? (column === 'value' ? `${prefix}[]` : `${prefix}.${column}`) : column);
  return (
    <Table withTableBorder withColumnBorders striped verticalSpacing={4} horizontalSpacing="xs" aria-label={label}
      style={{ width: 'max-content', minWidth: '100%' }}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th scope="col" w={40}><Text span size="xs" c="dimmed">#</Text></Table.Th>
          {grid.columns.map((c) => (
            <Table.Th key={c} scope="col" style={{ whiteSpace: 'nowrap' }}>
              <Text span size="xs" fw={600}>{c}</Text>
              {types.get(full(c)) && (
                <Badge size="xs" variant="light" color="gray" tt="none" ml={6} c="var(--mantine-color-text)">
                  {types.get(full(c))}
                </Badge>
              )}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {grid.rows.map((row, i) => {
          const opened = grid.columns.filter((c) => open.has(`${i}:${c}`) && row.get(c)?.kind === 'array');
          return (
            <Fragment key={i}>
              <Table.Tr bg={labels?.has(i) ? 'var(--mantine-color-red-light)' : undefined}>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>
                  <Text span size="xs" c="dimmed">{i + 1}</Text>
                  {labels?.has(i) && <InvalidBadge labels={labels.get(i)!} />}
                </Table.Td>
                {grid.columns.map((c) => (
                  <Table.Td key={c}>
                    <CellView cell={row.get(c)} column={`${prefix ? `${prefix} ` : ''}record ${i + 1} ${c}`}
                      open={open.has(`${i}:${c}`)} onToggle={() => toggle(`${i}:${c}`)} />
                  </Table.Td>
                ))}
              </Table.Tr>
              {opened.map((c) => {
                const cell = row.get(c);
                return cell?.kind === 'array' ? (
                  <Table.Tr key={`${c}-items`}>
                    <Table.Td />
                    <Table.Td colSpan={grid.columns.length} p="xs">
                      <PreviewGrid records={cell.items} types={types} prefix={prefix ? `${prefix}.${c}` : c}
                        label={`${full(c)} of record ${i + 1}`} />
                    </Table.Td>
                  </Table.Tr>
                ) : null;
              })}
            </Fragment>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}
