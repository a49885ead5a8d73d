// Projects: the caller's projects, searched, filtered by tag and paginated on the server.
import {
  Alert, Anchor, Badge, Button, CloseButton, Group, Paper, Skeleton, Stack, Table, Text, TextInput, useMatches,
} from '@mantine/core';
import { useDebouncedValue, useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconPlus, IconSearch, IconTag } from '@tabler/icons-react';
import { useEffect, useMemo, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useMutation, useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { useSession } from '../../auth/SessionProvider';
import { PageTitle } from '../../components/PageTitle';
import { formatWhen } from '../../components/format';
import { graphql } from '../../gql';
import { Pager } from '../../components/Pager';
import { ProjectFormModal, type ProjectValues } from './ProjectFormModal';

const ProjectsQuery = graphql(`
  query Projects($q: String, $tag: String, $limit: Int!, $offset: Int!) {
    projects(q: $q, tag: $tag, limit: $limit, offset: $offset) {
      total
      items { project_id name description tags tenant_id tenant_name updated_at }
    }
  }
`);

const CreateProjectMutation = graphql(`
  mutation CreateProject($input: ProjectCreateInput!) {
    create_project(input: $input) { project_id name }
  }
`);

const PAGE_SIZE = 20;

function tenantLabel(p: { tenant_id: number; tenant_name: string }): string {
  return p.tenant_name || `#${p.tenant_id}`;
}

/** A project's tags; each filters the list by itself. */
function TagBadges({ tags, active, onPick }: { tags: string[]; active: string; onPick: (tag: string) => void }) {
  if (tags.length === 0) return null;
  return (
    <Group gap={4}>
      {tags.map((t) => (
        <Badge key={t} component="button" type="button" variant={t === active ? 'filled' : 'light'} tt="none"
          style={{ cursor: 'pointer' }} aria-label={`Filter by tag ${t}`} onClick={() => onPick(t)}>
          {t}
        </Badge>
      ))}
    </Group>
  );
}
const EMPTY_PROJECT: ProjectValues = { name: '', description: '', tags: [] };

export default function ProjectsPage() {
  const { can, user } = useSession();
  // a SuperUser lists the projects of every tenant: each says whose it is
  const showTenant = user?.role === 'SuperUser';
  const compact = useMatches({ base: true, sm: false });
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const [search, setSearch] = useState(params.get('q') ?? '');
  const [q] = useDebouncedValue(search.trim(), 300);
  const tag = params.get('tag') ?? '';
  const page = Math.max(1, Number(params.get('page')) || 1);
  const [createOpened, createModal] = useDisclosure(false);
  const [, createProject] = useMutation(CreateProjectMutation);

  const setParam = (key: string, value: string | null, resetPage = true) =>
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      if (value) next.set(key, value);
      else next.delete(key);
      if (resetPage && key !== 'page') next.delete('page');
      return next;
    }, { replace: true });

  useEffect(() => {
    if ((params.get('q') ?? '') !== q) setParam('q', q || null);
  }, [q]); // eslint-disable-line react-hooks/exhaustive-deps

  const variables = useMemo(
    () => ({ q: q || null, tag: tag || null, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
    [q, tag, page],
  );
  const context = useMemo(() => ({ additionalTypenames: ['ProjectSummary', 'Project'] }), []);
  const [{ data, fetching, error }] = useQuery({ query: ProjectsQuery, variables, context });
  const total = data?.projects.total ?? 0;
  const items = data?.projects.items ?? [];
  const filtered = !!(q || tag);

  const create = async (values: ProjectValues) => {
    const result = await createProject({ input: values });
    const created = result.data?.create_project;
    if (!created) return result.error;
    createModal.close();
    notifications.show({ color: 'green', message: `Project "${created.name}" created.` });
    navigate(`/projects/${created.project_id}`);
    return undefined;
  };

  return (
    <>
      <PageTitle
        actions={can('project.create') && (
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={createModal.open}>New project</Button>
        )}
      >
        Projects
      </PageTitle>
      <Stack gap="md">
        <Group gap="sm" align="flex-end" wrap="wrap">
          <TextInput label="Search projects" placeholder="Name or description" value={search}
            onChange={(e) => setSearch(e.currentTarget.value)} leftSection={<IconSearch size={16} aria-hidden />}
            style={{ flex: '1 1 240px' }}
            rightSection={search ? <CloseButton size="sm" aria-label="Clear search" onClick={() => setSearch('')} /> : null} />
          <TextInput label="Tag" placeholder="Any tag" value={tag} onChange={(e) => setParam('tag', e.currentTarget.value || null)}
            leftSection={<IconTag size={16} aria-hidden />} w={{ base: '100%', xs: 200 }}
            rightSection={tag ? <CloseButton size="sm" aria-label="Clear tag filter" onClick={() => setParam('tag', null)} /> : null} />
        </Group>
        {error && <Alert color="red" role="alert" title="Could not load projects">{errorDetail(error)}</Alert>}
        <Paper withBorder radius="md">
          {!data && fetching ? (
            <Stack p="md" gap="xs">{[0, 1, 2, 3].map((i) => <Skeleton key={i} h={36} />)}</Stack>
          ) : items.length === 0 ? (
            <Stack p="lg" gap="sm" align="flex-start">
              {filtered ? (
                <>
                  <Text>No project matches {q ? `"${q}"` : ''}{q && tag ? ' with ' : ''}{tag ? `tag "${tag}"` : ''}.</Text>
                  <Button variant="default" size="xs" onClick={() => { setSearch(''); setParams({}, { replace: true }); }}>Clear filters</Button>
                </>
              ) : (
                <Text>
                  {can('project.create')
                    ? 'No project yet. Create the first one with New project.'
                    : 'You are not a member of any project yet. Ask a Manager to add you to one.'}
                </Text>
              )}
            </Stack>
          ) : (
            compact ? (
              <Stack component="ul" gap={0} p={0} m={0} style={{ listStyle: 'none', opacity: fetching ? 0.6 : 1 }} aria-label="Projects">
                {items.map((p, i) => (
                  <Stack key={p.project_id} component="li" gap={4} p="sm"
                    style={i ? { borderTop: '1px solid var(--mantine-color-default-border)' } : undefined}>
                    <Anchor component={Link} to={`/projects/${p.project_id}`} fw={500}>{p.name}</Anchor>
                    {p.description && <Text size="sm" c="dimmed" lineClamp={2}>{p.description}</Text>}
                    <TagBadges tags={p.tags} active={tag} onPick={(t) => setParam('tag', t)} />
                    <Text size="xs" c="dimmed">
                      {showTenant ? `Tenant ${tenantLabel(p)} · ` : ''}Updated {formatWhen(p.updated_at)}
                    </Text>
                  </Stack>
                ))}
              </Stack>
            ) : (
            <Table.ScrollContainer minWidth={showTenant ? 760 : 640} type="native">
              <Table verticalSpacing="sm" highlightOnHover aria-label="Projects">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">Name</Table.Th>
                    {showTenant && <Table.Th scope="col">Tenant</Table.Th>}
                    <Table.Th scope="col">Description</Table.Th>
                    <Table.Th scope="col">Tags</Table.Th>
                    <Table.Th scope="col">Updated</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody style={{ opacity: fetching ? 0.6 : 1 }}>
                  {items.map((p) => (
                    <Table.Tr key={p.project_id}>
                      <Table.Td><Anchor component={Link} to={`/projects/${p.project_id}`} fw={500}>{p.name}</Anchor></Table.Td>
                      {showTenant && <Table.Td><Text size="sm">{tenantLabel(p)}</Text></Table.Td>}
                      <Table.Td maw={360}><Text size="sm" c="dimmed" lineClamp={2}>{p.description || '—'}</Text></Table.Td>
                      <Table.Td><TagBadges tags={p.tags} active={tag} onPick={(t) => setParam('tag', t)} /></Table.Td>
                      <Table.Td><Text size="sm">{formatWhen(p.updated_at)}</Text></Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            )
          )}
        </Paper>
        <Pager page={page} pageSize={PAGE_SIZE} total={total} noun="projects"
          onChange={(p) => setParam('page', String(p), false)} />
      </Stack>
      <ProjectFormModal opened={createOpened} onClose={createModal.close} title="New project" submitLabel="Create project"
        initial={EMPTY_PROJECT} onSubmit={create} />
    </>
  );
}
