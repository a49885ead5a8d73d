// One project: datasets (live), members, linked schemas and details; edit and delete for owners.
import { Alert, Anchor, Button, Skeleton, Stack, Tabs, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { IconEdit, IconTrash } from '@tabler/icons-react';
import { useMemo } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { useMutation, useQuery } from 'urql';
import { errorDetail, errorStatus } from '../../api/errors';
import { useSession } from '../../auth/SessionProvider';
import { PageTitle } from '../../components/PageTitle';
import { graphql } from '../../gql';
import { ProjectDatasetsTab } from './ProjectDatasetsTab';
import { ProjectDetailsTab } from './ProjectDetailsTab';
import { ProjectFormModal, type ProjectValues } from './ProjectFormModal';
import { ProjectMembersTab } from './ProjectMembersTab';
import { ProjectSchemasTab } from './ProjectSchemasTab';

const ProjectQuery = graphql(`
  query Project($project_id: Int!) {
    project(project_id: $project_id) {
      project_id name description tags created_by created_at updated_at my_role
      members { user_id role added_at user { id username display_name email role } }
      schemas { schema_id name type version roots default_root field_count created_at }
    }
  }
`);

const UpdateProjectMutation = graphql(`
  mutation UpdateProject($project_id: Int!, $input: ProjectUpdateInput!) {
    update_project(project_id: $project_id, input: $input) { project_id name description tags updated_at }
  }
`);

const DeleteProjectMutation = graphql(`
  mutation DeleteProject($project_id: Int!) { delete_project(project_id: $project_id) { deleted id } }
`);

const TABS = ['datasets', 'members', 'schemas', 'details'] as const;

export default function ProjectPage() {
  const projectId = Number(useParams().projectId);
  const valid = Number.isInteger(projectId) && projectId > 0;
  const navigate = useNavigate();
  const { can } = useSession();
  const [params, setParams] = useSearchParams();
  const tab = (TABS as readonly string[]).includes(params.get('tab') ?? '') ? params.get('tab')! : 'datasets';
  const context = useMemo(() => ({ additionalTypenames: ['Project', 'ProjectMember', 'Schema'] }), []);
  const [{ data, fetching, error }, refetch] = useQuery({
    query: ProjectQuery, variables: { project_id: projectId }, pause: !valid, context,
  });
  const [, updateProject] = useMutation(UpdateProjectMutation);
  const [, deleteProject] = useMutation(DeleteProjectMutation);
  const [editOpened, edit] = useDisclosure(false);
  const project = data?.project;
  const reload = () => refetch({ requestPolicy: 'network-only' });

  if (!valid || (error && !project)) {
    const missing = !valid || errorStatus(error) === 404;
    return (
      <>
        <PageTitle>{missing ? 'Project not found' : 'Project'}</PageTitle>
        <Alert color={missing ? 'yellow' : 'red'} role="alert">
          {missing ? 'This project does not exist or you are not a member of it.' : errorDetail(error)}{' '}
          <Anchor component={Link} to="/projects">Back to Projects</Anchor>
        </Alert>
      </>
    );
  }
  if (!project) {
    return (
      <Stack gap="md" aria-busy={fetching}>
        <Skeleton h={40} w="40%" />
        <Skeleton h={36} />
        <Skeleton h={200} />
      </Stack>
    );
  }

  const save = async (values: ProjectValues) => {
    const result = await updateProject({ project_id: project.project_id, input: values });
    if (!result.data) return result.error;
    edit.close();
    notifications.show({ color: 'green', message: 'Project saved.' });
    reload();
    return undefined;
  };

  const confirmDelete = () =>
    modals.openConfirmModal({
      title: `Delete project "${project.name}"?`,
      children: (
        <Text size="sm">
          Its datasets and their files are deleted too; linked schemas stay in the library. This cannot be undone.
        </Text>
      ),
      labels: { confirm: 'Delete', cancel: 'Cancel' },
      confirmProps: { color: 'red.9' },
      closeButtonProps: { 'aria-label': 'Close' },
      onConfirm: async () => {
        const result = await deleteProject({ project_id: project.project_id });
        if (result.error) {
          notifications.show({ color: 'red', title: 'Could not delete the project', message: errorDetail(result.error) });
          return;
        }
        notifications.show({ color: 'green', message: `Project "${project.name}" deleted.` });
        navigate('/projects');
      },
    });

  const role = project.my_role;
  return (
    <>
      <PageTitle
        actions={
          <>
            {can('project.update', role) && (
              <Button variant="default" leftSection={<IconEdit size={16} aria-hidden />} onClick={edit.open}>Edit project</Button>
            )}
            {can('project.delete', role) && (
              <Button variant="light" color="red" leftSection={<IconTrash size={16} aria-hidden />} onClick={confirmDelete}>
                Delete project
              </Button>
            )}
          </>
        }
      >
        {project.name}
      </PageTitle>
      {project.description && <Text c="dimmed" mt={-8} mb="md" style={{ whiteSpace: 'pre-line' }} lineClamp={3}>{project.description}</Text>}
      <Tabs value={tab} onChange={(v) => setParams(v && v !== 'datasets' ? { tab: v } : {}, { replace: true })} keepMounted={false}>
        <Tabs.List mb="md">
          <Tabs.Tab value="datasets">Datasets</Tabs.Tab>
          <Tabs.Tab value="members">Members</Tabs.Tab>
          <Tabs.Tab value="schemas">Schemas</Tabs.Tab>
          <Tabs.Tab value="details">Details</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="datasets">
          <ProjectDatasetsTab projectId={project.project_id} myRole={role} hasSchemas={project.schemas.length > 0}
            onShowSchemas={() => setParams({ tab: 'schemas' }, { replace: true })} />
        </Tabs.Panel>
        <Tabs.Panel value="members">
          <ProjectMembersTab projectId={project.project_id} myRole={role} members={project.members} onChanged={reload} />
        </Tabs.Panel>
        <Tabs.Panel value="schemas">
          <ProjectSchemasTab projectId={project.project_id} myRole={role} schemas={project.schemas} onChanged={reload} />
        </Tabs.Panel>
        <Tabs.Panel value="details">
          <ProjectDetailsTab project={project} />
        </Tabs.Panel>
      </Tabs>
      <ProjectFormModal opened={editOpened} onClose={edit.close} title="Edit project" submitLabel="Save changes"
        initial={{ name: project.name, description: project.description, tags: project.tags }} onSubmit={save} />
    </>
  );
}
