// Tenants (SuperUser): list, create with a first Admin, edit limits and retention.
import { Alert, Badge, Button, Group, Paper, Skeleton, Stack, Table, Text, VisuallyHidden, useMatches } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPencil, IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { formatCount, formatWhen } from '../../components/format';
import { graphql } from '../../gql';
import type { AdminTenantsQuery } from '../../gql/graphql';
import { Pager } from '../../components/Pager';
import { EditTenantModal, NewTenantModal } from './TenantModals';

const TenantsQuery = graphql(`
  query AdminTenants($limit: Int!, $offset: Int!) {
    tenants(limit: $limit, offset: $offset) {
      total
      items { tenant_id name is_active max_record_count max_concurrent_generations retention_days created_at updated_at }
    }
  }
`);

export type TenantItem = AdminTenantsQuery['tenants']['items'][number];

const PAGE_SIZE = 20;

function retention(t: TenantItem): string {
  return t.retention_days ? `${t.retention_days} days` : 'Keep forever';
}

function EditButton({ tenant, onEdit }: { tenant: TenantItem; onEdit: (t: TenantItem) => void }) {
  return (
    <Button size="xs" variant="subtle" leftSection={<IconPencil size={14} aria-hidden />}
      aria-label={`Edit tenant ${tenant.name}`} onClick={() => onEdit(tenant)}>
      Edit
    </Button>
  );
}

function ActiveBadge({ tenant }: { tenant: TenantItem }) {
  return <Badge variant="dot" color={tenant.is_active ? 'green' : 'gray'}>{tenant.is_active ? 'Active' : 'Inactive'}</Badge>;
}

/** A tenant as a card, for phones. */
function TenantCard({ tenant, onEdit }: { tenant: TenantItem; onEdit: (t: TenantItem) => void }) {
  return (
    <Paper component="li" withBorder p="sm" radius="md">
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm" fw={600}>{tenant.name} <Text span size="xs" c="dimmed">ID {tenant.tenant_id}</Text></Text>
        <ActiveBadge tenant={tenant} />
      </Group>
      <Text size="xs" c="dimmed" mt={4}>
        Up to {formatCount(tenant.max_record_count)} records per dataset · {tenant.max_concurrent_generations} at once · {retention(tenant)}
      </Text>
      <Group justify="space-between" mt={4}>
        <Text size="xs" c="dimmed">Created {formatWhen(tenant.created_at)}</Text>
        <EditButton tenant={tenant} onEdit={onEdit} />
      </Group>
    </Paper>
  );
}

export function TenantsTab() {
  const [page, setPage] = useState(1);
  const [newOpened, newTenant] = useDisclosure(false);
  const [editing, setEditing] = useState<TenantItem | null>(null);
  const [{ data, fetching, error }, reexecute] = useQuery({
    query: TenantsQuery,
    variables: { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE },
  });
  const items = data?.tenants.items ?? [];
  const compact = useMatches({ base: true, sm: false });
  return (
    <Stack>
      <Group justify="space-between" wrap="wrap">
        <Text size="sm" c="dimmed">Each tenant is a separate team with its own users, projects and library.</Text>
        <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={newTenant.open}>New tenant</Button>
      </Group>
      {error && <Alert color="red" role="alert" title="Could not load the tenants">{errorDetail(error)}</Alert>}
      {fetching && !data && <Stack gap="xs">{[0, 1, 2].map((i) => <Skeleton key={i} h={40} />)}</Stack>}
      {data && items.length === 0 && <Text c="dimmed" size="sm">There are no tenants yet. Create the first one.</Text>}
      {items.length > 0 && compact && (
        <Stack component="ul" gap="xs" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Tenants">
          {items.map((t) => <TenantCard key={t.tenant_id} tenant={t} onEdit={setEditing} />)}
        </Stack>
      )}
      {items.length > 0 && !compact && (
        <Table.ScrollContainer minWidth={820}>
          <Table striped highlightOnHover verticalSpacing="xs" aria-label="Tenants">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Name</Table.Th>
                <Table.Th scope="col">ID</Table.Th>
                <Table.Th scope="col">Status</Table.Th>
                <Table.Th scope="col">Max records per dataset</Table.Th>
                <Table.Th scope="col">Concurrent generations</Table.Th>
                <Table.Th scope="col">Retention</Table.Th>
                <Table.Th scope="col">Created</Table.Th>
                <Table.Th scope="col"><VisuallyHidden>Actions</VisuallyHidden></Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((t) => (
                <Table.Tr key={t.tenant_id}>
                  <Table.Td><Text size="sm" fw={500}>{t.name}</Text></Table.Td>
                  <Table.Td>{t.tenant_id}</Table.Td>
                  <Table.Td><ActiveBadge tenant={t} /></Table.Td>
                  <Table.Td>{formatCount(t.max_record_count)}</Table.Td>
                  <Table.Td>{t.max_concurrent_generations}</Table.Td>
                  <Table.Td>{retention(t)}</Table.Td>
                  <Table.Td><Text size="sm" style={{ whiteSpace: 'nowrap' }}>{formatWhen(t.created_at)}</Text></Table.Td>
                  <Table.Td ta="right"><EditButton tenant={t} onEdit={setEditing} /></Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {data && <Pager page={page} pageSize={PAGE_SIZE} total={data.tenants.total} noun="tenants" onChange={setPage} />}
      <NewTenantModal opened={newOpened} onClose={newTenant.close} onCreated={() => reexecute({ requestPolicy: 'network-only' })} />
      <EditTenantModal tenant={editing} onClose={() => setEditing(null)} />
    </Stack>
  );
}
