// One audit entry, with its details (the JSON the service recorded) expandable below it.
import { ActionIcon, Badge, Code, Group, Paper, Table, Text, Tooltip } from '@mantine/core';
import { IconChevronDown, IconChevronRight } from '@tabler/icons-react';
import { useState } from 'react';
import { formatWhen } from '../../components/format';
import type { AdminAuditLogsQuery } from '../../gql/graphql';

type Entry = AdminAuditLogsQuery['audit_logs']['items'][number];

function hasDetails(details: unknown): boolean {
  return details != null && (typeof details !== 'object' || Object.keys(details as object).length > 0);
}

export function AuditRow({ entry, showTenant }: { entry: Entry; showTenant: boolean }) {
  const [open, setOpen] = useState(false);
  const target = entry.target_type ? `${entry.target_type}${entry.target_id ? ` ${entry.target_id}` : ''}` : '—';
  const detailsId = `audit-details-${entry.id}`;
  const columns = showTenant ? 9 : 8;
  return (
    <>
      <Table.Tr>
        <Table.Td><Text size="sm" style={{ whiteSpace: 'nowrap' }}>{formatWhen(entry.at)}</Text></Table.Td>
        <Table.Td>
          <Text size="sm">{entry.actor_username ?? '—'}</Text>
          {entry.actor_id != null && <Text size="xs" c="dimmed">ID {entry.actor_id}</Text>}
        </Table.Td>
        <Table.Td><Text size="sm">{entry.role ?? '—'}</Text></Table.Td>
        <Table.Td>
          <Group gap={6} wrap="nowrap">
            <Text size="sm" ff="monospace">{entry.action}</Text>
            {!entry.success && <Badge color="red" variant="dot" size="sm">Refused</Badge>}
          </Group>
        </Table.Td>
        <Table.Td><Text size="sm">{target}</Text></Table.Td>
        <Table.Td><Text size="sm">{entry.project_id ?? '—'}</Text></Table.Td>
        {showTenant && <Table.Td><Text size="sm">{entry.tenant_id ?? '—'}</Text></Table.Td>}
        <Table.Td><Text size="sm" ff="monospace">{entry.ip ?? '—'}</Text></Table.Td>
        <Table.Td>
          {hasDetails(entry.details) && (
            <Tooltip label={open ? 'Hide details' : 'Show details'}>
              <ActionIcon variant="subtle" onClick={() => setOpen((o) => !o)} aria-expanded={open} aria-controls={open ? detailsId : undefined}
                aria-label={`Details of entry ${entry.id}`}>
                {open ? <IconChevronDown size={16} aria-hidden /> : <IconChevronRight size={16} aria-hidden />}
              </ActionIcon>
            </Tooltip>
          )}
        </Table.Td>
      </Table.Tr>
      {open && (
        <Table.Tr id={detailsId}>
          <Table.Td colSpan={columns}>
            <Code block>{JSON.stringify(entry.details, null, 2)}</Code>
          </Table.Td>
        </Table.Tr>
      )}
    </>
  );
}

/** The same entry as a card, for phones. */
export function AuditCard({ entry, showTenant }: { entry: Entry; showTenant: boolean }) {
  const [open, setOpen] = useState(false);
  const detailsId = `audit-card-details-${entry.id}`;
  const where = [
    entry.target_type ? `${entry.target_type}${entry.target_id ? ` ${entry.target_id}` : ''}` : null,
    entry.project_id != null ? `project ${entry.project_id}` : null,
    showTenant && entry.tenant_id != null ? `tenant ${entry.tenant_id}` : null,
  ].filter(Boolean).join(' · ');
  return (
    <Paper component="li" withBorder p="sm" radius="md">
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <div style={{ minWidth: 0 }}>
          <Group gap={6}>
            <Text size="sm" ff="monospace" fw={600}>{entry.action}</Text>
            {!entry.success && <Badge color="red" variant="dot" size="sm">Refused</Badge>}
          </Group>
          <Text size="xs" c="dimmed">{formatWhen(entry.at)}</Text>
          <Text size="sm">
            {entry.actor_username ?? '—'}{entry.actor_id != null ? ` (ID ${entry.actor_id})` : ''}{entry.role ? ` · ${entry.role}` : ''}
          </Text>
          {where && <Text size="xs" c="dimmed">{where}</Text>}
          {entry.ip && <Text size="xs" c="dimmed" ff="monospace">{entry.ip}</Text>}
        </div>
        {hasDetails(entry.details) && (
          <ActionIcon variant="subtle" onClick={() => setOpen((o) => !o)} aria-expanded={open} aria-controls={open ? detailsId : undefined}
            aria-label={`Details of entry ${entry.id}`}>
            {open ? <IconChevronDown size={16} aria-hidden /> : <IconChevronRight size={16} aria-hidden />}
          </ActionIcon>
        )}
      </Group>
      {open && <Code block mt="xs" id={detailsId}>{JSON.stringify(entry.details, null, 2)}</Code>}
    </Paper>
  );
}
