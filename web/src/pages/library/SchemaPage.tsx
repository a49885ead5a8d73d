// One schema: metadata, record root, field tree, unsupported parts, project links, constraint sets,
// a preview and deletion.
import { Alert, Anchor, Breadcrumbs, Button, Grid, List, Paper, Select, Skeleton, Stack, Text, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useMutation, useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { useSession } from '../../auth/SessionProvider';
import { PageLoader } from '../../components/PageLoader';
import { PageTitle } from '../../components/PageTitle';
import { PreviewPanel } from '../../components/preview/PreviewPanel';
import { graphql } from '../../gql';
import type { SchemaRepr } from './fieldTree';
import { SchemaConstraintSets } from './SchemaConstraintSets';
import { SchemaFieldTree } from './SchemaFieldTree';
import { SchemaLinkProject } from './SchemaLinkProject';
import { SatisfiableBadge } from './SatisfiableBadge';
import { SchemaMeta } from './SchemaMeta';

const SchemaDetailQuery = graphql(`
  query SchemaDetail($schema_id: Int!) {
    schema(schema_id: $schema_id) {
      schema_id name type version filename size_bytes sha256 roots default_root field_count created_at created_by
      project_ids satisfiable problem
    }
  }
`);

const SchemaReprQuery = graphql(`
  query SchemaRepr($schema_id: Int!, $root: String) { schema_repr(schema_id: $schema_id, root: $root) }
`);

const DeleteSchemaMutation = graphql(`
  mutation DeleteSchema($schema_id: Int!) { delete_schema(schema_id: $schema_id) { deleted id } }
`);

export default function SchemaPage() {
  const schemaId = Number(useParams().schemaId);
  const { can, user } = useSession();
  const navigate = useNavigate();
  const [root, setRoot] = useState<string | null>(null);
  const [{ data, fetching, error }, refetch] = useQuery({
    query: SchemaDetailQuery, variables: { schema_id: schemaId }, pause: !Number.isInteger(schemaId),
  });
  const schema = data?.schema;
  const chosenRoot = root ?? schema?.default_root ?? null;
  const [repr] = useQuery({
    query: SchemaReprQuery, variables: { schema_id: schemaId, root: chosenRoot }, pause: !schema,
  });
  const [deleting, deleteSchema] = useMutation(DeleteSchemaMutation);

  if (!Number.isInteger(schemaId)) return <Alert color="red">This address names no schema.</Alert>;
  if (error && !schema) {
    return (
      <Stack>
        <PageTitle>Schema</PageTitle>
        <Alert color="red" role="alert" title="Could not load the schema">{errorDetail(error)}</Alert>
        <Anchor component={Link} to="/library">Back to the library</Anchor>
      </Stack>
    );
  }
  if (!schema) return fetching ? <PageLoader /> : null;

  const canDelete = can('schema.delete') || (user != null && schema.created_by === user.id);
  const reprData = repr.data?.schema_repr as SchemaRepr | undefined;
  const confirmDelete = () => modals.openConfirmModal({
    title: `Delete ${schema.name}?`,
    children: <Text size="sm">The schema and its constraint sets are removed from the library. A schema used by datasets cannot be deleted.</Text>,
    labels: { confirm: 'Delete', cancel: 'Cancel' },
    confirmProps: { color: 'red' },
    onConfirm: async () => {
      const result = await deleteSchema({ schema_id: schema.schema_id });
      if (result.data?.delete_schema.deleted) {
        notifications.show({ color: 'green', title: 'Schema deleted', message: `${schema.name} was deleted.` });
        navigate('/library');
      }
    },
  });

  return (
    <Stack gap="md">
      <Breadcrumbs>
        <Anchor component={Link} to="/library" size="sm">Library</Anchor>
        <Text size="sm">{schema.name}</Text>
      </Breadcrumbs>
      <PageTitle
        actions={canDelete ? (
          <Button color="red" variant="light" leftSection={<IconTrash size={16} aria-hidden />} onClick={confirmDelete}
            loading={deleting.fetching}>
            Delete schema
          </Button>
        ) : undefined}
      >
        {schema.name}
      </PageTitle>
      {schema.satisfiable === false && (
        <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} aria-hidden />}
          title={<>No record can be generated from this schema <SatisfiableBadge satisfiable={false} /></>}>
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>{schema.problem ?? 'The upload check found no way to build a record of its default root.'}</Text>
          <Text size="sm" mt={4}>A dataset of its default root is refused until the schema is fixed and uploaded again.</Text>
        </Alert>
      )}
      {schema.satisfiable == null && (
        <Alert color="gray" variant="light" title={<>Not checked at upload <SatisfiableBadge satisfiable={null} /></>}>
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>{schema.problem ?? 'The schema was too large to check before a dataset.'}</Text>
        </Alert>
      )}
      {deleting.error && <Alert color="red" role="alert" title="Not deleted">{errorDetail(deleting.error)}</Alert>}
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Stack gap="md">
            <Paper withBorder p="md" radius="md">
              <Stack gap="md">
                <SchemaMeta schema={schema} />
                <SchemaLinkProject schemaId={schema.schema_id} projectIds={schema.project_ids}
                  canLink={can('project.link_schema')} onLinked={() => refetch({ requestPolicy: 'network-only' })} />
              </Stack>
            </Paper>
            <Paper withBorder p="md" radius="md">
              <SchemaConstraintSets schemaId={schema.schema_id} canCreate={can('constraint.create')} />
            </Paper>
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Paper withBorder p="md" radius="md" component="section" aria-labelledby="fields-title">
            <Stack gap="sm">
              <Title order={2} size="h4" id="fields-title">Fields</Title>
              {schema.roots.length > 1 && (
                <Select label="Root" description="The element or definition each record is built from" data={schema.roots}
                  value={chosenRoot} onChange={(v) => v && setRoot(v)} allowDeselect={false} searchable maw={360} />
              )}
              {repr.error && <Alert color="red" role="alert">{errorDetail(repr.error)}</Alert>}
              {reprData && reprData.unsupported.length > 0 && (
                <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} aria-hidden />}
                  title="Parts of this schema are not generated as written">
                  <List size="sm" spacing={2}>
                    {reprData.unsupported.map((u, i) => (
                      <List.Item key={i}><Text span ff="monospace" size="sm">{u.path || '(record)'}</Text>: {u.reason}</List.Item>
                    ))}
                  </List>
                </Alert>
              )}
              {!reprData && repr.fetching && <Skeleton h={240} role="status" aria-label="Loading the field tree" />}
              {reprData && <SchemaFieldTree fields={reprData.fields} />}
            </Stack>
          </Paper>
        </Grid.Col>
      </Grid>
      <PreviewPanel schemaId={schema.schema_id}
        params={chosenRoot && chosenRoot !== schema.default_root ? { root: chosenRoot } : undefined} />
    </Stack>
  );
}
