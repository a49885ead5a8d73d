// The projects a schema is linked to, and "Link to project" (add_project_schema; the server checks
// the caller's project role).
import { Alert, Anchor, Button, Group, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconLink } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { graphql } from '../../gql';
import { ProjectSelect } from './ProjectSelect';

const LinkSchemaMutation = graphql(`
  mutation LinkSchemaToProject($project_id: Int!, $schema_id: Int!) {
    add_project_schema(project_id: $project_id, input: { schema_id: $schema_id }) { project_id name }
  }
`);

const ProjectNameQuery = graphql(`
  query ProjectName($project_id: Int!) { project(project_id: $project_id) { project_id name } }
`);

function ProjectLink({ projectId }: { projectId: number }) {
  const [{ data, error }] = useQuery({ query: ProjectNameQuery, variables: { project_id: projectId }, requestPolicy: 'cache-first' });
  // a project the caller cannot see is still named by its id
  if (error || !data) return <Text span size="sm">{error ? `Project ${projectId}` : '…'}</Text>;
  return <Anchor component={Link} to={`/projects/${projectId}`} size="sm">{data.project.name}</Anchor>;
}

export function SchemaLinkProject({ schemaId, projectIds, canLink, onLinked }: {
  schemaId: number; projectIds: number[]; canLink: boolean; onLinked: () => void;
}) {
  const [projectId, setProjectId] = useState<number | null>(null);
  const [state, link] = useMutation(LinkSchemaMutation);

  const submit = async () => {
    if (projectId == null) return;
    const result = await link({ project_id: projectId, schema_id: schemaId });
    if (result.data) {
      notifications.show({ color: 'green', title: 'Schema linked', message: `Linked to ${result.data.add_project_schema.name}.` });
      setProjectId(null);
      onLinked();
    }
  };

  return (
    <Stack gap="xs">
      <Text size="sm" fw={500}>Projects</Text>
      {projectIds.length === 0
        ? <Text size="sm" c="dimmed">Not linked to any project yet.</Text>
        : (
          <Group gap="sm">
            {projectIds.map((id) => <ProjectLink key={id} projectId={id} />)}
          </Group>
        )}
      {canLink && (
        <Group align="flex-end" gap="sm" wrap="wrap">
          <ProjectSelect value={projectId} onChange={setProjectId} exclude={projectIds} w={{ base: '100%', xs: 260 }} />
          <Button leftSection={<IconLink size={16} aria-hidden />} onClick={submit} disabled={projectId == null}
            loading={state.fetching}>
            Link to project
          </Button>
        </Group>
      )}
      {state.error && <Alert color="red" role="alert" title="Not linked">{errorDetail(state.error)}</Alert>}
    </Stack>
  );
}
