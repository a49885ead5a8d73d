// Integrations of the tenant: Managers read the list, Admins create them.
import { Alert, Anchor, Badge, Button, Card, EmptyState, Group, Skeleton, Stack, Table, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconPlugConnected, IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { useSession } from '../../auth/SessionProvider';
import { formatCount } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { graphql } from '../../gql';
import { providerLabel, targetOf } from './fields';
import { LastDelivery } from './LastDelivery';
import { NewIntegrationModal } from './NewIntegrationModal';
import { Pager } from '../../components/Pager';

const PAGE_SIZE = 20;

const IntegrationsQuery = graphql(`
  query Integrations($limit: Int!, $offset: Int!) {
    integrations(limit: $limit, offset: $offset) {
      items { integration_id name provider config is_active consecutive_failures disabled_reason }
      total
    }
  }
`);

function ActiveBadge({ integration: i }: { integration: { is_active: boolean; disabled_reason?: string | null } }) {
  return (
    <div>
      <Badge variant="dot" tt="none" color={i.is_active ? 'green' : 'gray'} style={{ minWidth: 'max-content' }}>
        {i.is_active ? 'Active' : i.disabled_reason ? 'Disabled' : 'Off'}
      </Badge>
      {i.disabled_reason && <Text size="xs" c="dimmed" lineClamp={2}>{i.disabled_reason}</Text>}
    </div>
  );
}

export default function IntegrationsPage() {
  const { can } = useSession();
  const mayRead = can('integration.read');
  const mayManage = can('integration.manage');
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const narrow = useMediaQuery('(max-width: 48em)', false, { getInitialValueInEffect: false });
  const [{ data, fetching, error }] = useQuery({
    query: IntegrationsQuery,
    variables: { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE },
    pause: !mayRead,
  });

  const actions = mayManage ? (
    <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setCreating(true)}>New integration</Button>
  ) : undefined;

  if (!mayRead) {
    return (
      <>
        <PageTitle>Integrations</PageTitle>
        <Alert color="blue" variant="light" title="Not available for your role">
          Integrations (webhooks and object storage) are visible to Managers and Admins. Ask an Admin of
          your organisation if you need events sent somewhere.
        </Alert>
      </>
    );
  }

  const items = data?.integrations.items ?? [];
  const total = data?.integrations.total ?? 0;

  return (
    <>
      <PageTitle actions={actions}>Integrations</PageTitle>
      <Text c="dimmed" size="sm" mb="md">
        Webhooks receive signed events (dataset completed or failed, schema uploaded, project created);
        S3 integrations receive exported dataset files.
      </Text>
      {error && <Alert color="red" role="alert" title="Could not load integrations" mb="md">{errorDetail(error)}</Alert>}
      {fetching && !data && <Skeleton height={160} radius="md" role="status" aria-label="Loading integrations" />}
      {data && items.length === 0 && (
        <Card withBorder padding="xl">
          <EmptyState icon={<IconPlugConnected size={28} aria-hidden />} title="No integrations yet"
            description={mayManage
              ? 'Create a webhook to be told when datasets complete, or an S3 integration to export files.'
              : 'An Admin can create webhooks and S3 integrations; they will be listed here.'}>
            {mayManage && (
              <EmptyState.Actions>
                <Button variant="default" onClick={() => setCreating(true)}>Create the first integration</Button>
              </EmptyState.Actions>
            )}
          </EmptyState>
        </Card>
      )}
      {items.length > 0 && narrow && (
        <Stack component="ul" gap="sm" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Integrations">
          {items.map((i) => (
            <Card key={i.integration_id} component="li" withBorder padding="sm">
              <Group justify="space-between" wrap="nowrap" align="flex-start">
                <Anchor component={Link} to={`/integrations/${i.integration_id}`} fw={600}>{i.name}</Anchor>
                <ActiveBadge integration={i} />
              </Group>
              <Text size="sm">{providerLabel(i.provider)}</Text>
              <Text size="sm" ff="monospace" style={{ overflowWrap: 'anywhere' }}>{targetOf(i.provider, i.config)}</Text>
              <Group gap="xs" mt={4}>
                <Text size="sm">Last delivery:</Text>
                <LastDelivery integrationId={i.integration_id} provider={i.provider} />
              </Group>
            </Card>
          ))}
        </Stack>
      )}
      {items.length > 0 && !narrow && (
        <Card withBorder padding={0}>
          <Table.ScrollContainer minWidth={720}>
            <Table striped highlightOnHover verticalSpacing="sm">
              <Table.Caption>{formatCount(total)} integration{total === 1 ? '' : 's'}</Table.Caption>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Name</Table.Th>
                  <Table.Th scope="col">Provider</Table.Th>
                  <Table.Th scope="col">Active</Table.Th>
                  <Table.Th scope="col">Target</Table.Th>
                  <Table.Th scope="col">Last delivery</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {items.map((i) => (
                  <Table.Tr key={i.integration_id}>
                    <Table.Th scope="row" fw={500}>
                      <Anchor component={Link} to={`/integrations/${i.integration_id}`}>{i.name}</Anchor>
                    </Table.Th>
                    <Table.Td>{providerLabel(i.provider)}</Table.Td>
                    <Table.Td>
                      <ActiveBadge integration={i} />
                    </Table.Td>
                    <Table.Td maw={320} style={{ overflowWrap: 'anywhere' }}>
                      <Text size="sm" ff="monospace">{targetOf(i.provider, i.config)}</Text>
                    </Table.Td>
                    <Table.Td><LastDelivery integrationId={i.integration_id} provider={i.provider} /></Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
      <Pager total={total} pageSize={PAGE_SIZE} page={page} onChange={setPage} noun="integrations" />
      {mayManage && <NewIntegrationModal opened={creating} onClose={() => setCreating(false)} />}
    </>
  );
}
