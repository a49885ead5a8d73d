// The audit log with the filters of /audit/logs: action (a family such as "project" matches
// project.create, project.delete, ...; or an exact name), actor, role, project and a date range
// (whole UTC days), newest first.
import { Alert, Button, Select, SimpleGrid, Skeleton, Stack, Table, Text, TextInput, VisuallyHidden, useMatches } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useQuery } from 'urql';
import { useSession } from '../../auth/SessionProvider';
import { graphql } from '../../gql';
import { placeServerError } from '../settings/serverErrors';
import { AuditCard, AuditRow } from './AuditRow';
import { Pager } from '../../components/Pager';
import { ROLE_OPTIONS } from './roles';

const AuditQuery = graphql(`
  query AdminAuditLogs($action: String, $actor_id: Int, $role: String, $project_id: Int, $start_date: String,
                       $end_date: String, $limit: Int!, $offset: Int!) {
    audit_logs(action: $action, actor_id: $actor_id, role: $role, project_id: $project_id, start_date: $start_date,
               end_date: $end_date, limit: $limit, offset: $offset) {
      total
      items { id at actor_id actor_username role tenant_id action project_id target_type target_id details ip success }
    }
  }
`);

const PAGE_SIZE = 25;
const EMPTY = { action: '', actor: '', role: null as string | null, project: '', from: '', to: '' };

function toId(value: string): number | null | undefined {
  const text = value.trim();
  if (!text) return null;
  return /^\d{1,10}$/.test(text) && Number(text) > 0 ? Number(text) : undefined; // undefined: not an id
}

export function AuditLogTab() {
  const { user } = useSession();
  const [filters, setFilters] = useState(EMPTY);
  const [page, setPage] = useState(1);
  const [debounced] = useDebouncedValue(filters, 350);
  const actorId = toId(debounced.actor);
  const projectId = toId(debounced.project);
  const valid = actorId !== undefined && projectId !== undefined;
  const [{ data, fetching, error }] = useQuery({
    query: AuditQuery,
    pause: !valid,
    variables: {
      action: debounced.action.trim() || null,
      actor_id: actorId ?? null,
      role: debounced.role,
      project_id: projectId ?? null,
      start_date: debounced.from || null,
      end_date: debounced.to || null,
      limit: PAGE_SIZE,
      offset: (page - 1) * PAGE_SIZE,
    },
  });
  const set = (key: keyof typeof EMPTY) => (value: string | null) => {
    setFilters((current) => ({ ...current, [key]: value ?? (key === 'role' ? null : '') }));
    setPage(1);
  };
  const placed = placeServerError(error, { action: 'action', actor_id: 'actor', role: 'role', project_id: 'project', start_date: 'from', end_date: 'to' });
  const fieldError = (key: string, local?: string | null) => local ?? placed.byField[key];
  const items = data?.audit_logs.items ?? [];
  const filtered = JSON.stringify(filters) !== JSON.stringify(EMPTY);
  const showTenant = user?.role === 'SuperUser';
  const compact = useMatches({ base: true, sm: false });

  return (
    <Stack>
      <SimpleGrid cols={{ base: 2, md: 3, lg: 6 }} spacing="sm" verticalSpacing="xs">
        <TextInput label="Action" placeholder="e.g. project or user.create" value={filters.action}
          onChange={(e) => set('action')(e.currentTarget.value)} error={fieldError('action')} />
        <TextInput label="Actor ID" inputMode="numeric" value={filters.actor} onChange={(e) => set('actor')(e.currentTarget.value)}
          error={fieldError('actor', actorId === undefined ? 'Enter a user ID (a number).' : null)} />
        <Select label="Role" placeholder="Any role" data={ROLE_OPTIONS} clearable value={filters.role} onChange={set('role')}
          error={fieldError('role')} />
        <TextInput label="Project ID" inputMode="numeric" value={filters.project} onChange={(e) => set('project')(e.currentTarget.value)}
          error={fieldError('project', projectId === undefined ? 'Enter a project ID (a number).' : null)} />
        <TextInput label="From" type="date" value={filters.from} onChange={(e) => set('from')(e.currentTarget.value)}
          error={fieldError('from')} />
        <TextInput label="To" type="date" value={filters.to} onChange={(e) => set('to')(e.currentTarget.value)}
          error={fieldError('to')} />
      </SimpleGrid>
      {filtered && <Button variant="subtle" size="xs" w="fit-content" onClick={() => { setFilters(EMPTY); setPage(1); }}>Clear filters</Button>}

      {placed.general && <Alert color="red" role="alert" title="Could not load the audit log">{placed.general}</Alert>}
      {fetching && !data && <Stack gap="xs">{[0, 1, 2, 3, 4].map((i) => <Skeleton key={i} h={36} />)}</Stack>}
      {data && items.length === 0 && (
        <Text c="dimmed" size="sm" py="md">
          {filtered ? 'No audit entry matches these filters. Widen the dates or clear the filters.' : 'Nothing has been recorded yet.'}
        </Text>
      )}
      {items.length > 0 && compact && (
        <Stack component="ul" gap="xs" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Audit log">
          {items.map((entry) => <AuditCard key={entry.id} entry={entry} showTenant={showTenant} />)}
        </Stack>
      )}
      {items.length > 0 && !compact && (
        <Table.ScrollContainer minWidth={960}>
          <Table striped verticalSpacing="xs" aria-label="Audit log">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">At</Table.Th>
                <Table.Th scope="col">Actor</Table.Th>
                <Table.Th scope="col">Role</Table.Th>
                <Table.Th scope="col">Action</Table.Th>
                <Table.Th scope="col">Target</Table.Th>
                <Table.Th scope="col">Project</Table.Th>
                {showTenant && <Table.Th scope="col">Tenant</Table.Th>}
                <Table.Th scope="col">IP</Table.Th>
                <Table.Th scope="col"><VisuallyHidden>Details</VisuallyHidden></Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((entry) => <AuditRow key={entry.id} entry={entry} showTenant={showTenant} />)}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {data && <Pager page={page} pageSize={PAGE_SIZE} total={data.audit_logs.total} noun="entries" onChange={setPage} />}
    </Stack>
  );
}
