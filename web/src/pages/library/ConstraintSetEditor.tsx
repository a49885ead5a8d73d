// The constraint-set form: name, description, schema (fixed once created), root, rules; save and
// delete; a live preview of the rules as they are being edited (unsaved). The server's 422 about a
// rule, from saving or from the preview, is shown at that rule.
import { Alert, Anchor, Breadcrumbs, Button, Group, Paper, Select, SimpleGrid, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { IconDeviceFloppy, IconPlus, IconTrash } from '@tabler/icons-react';
import { useCallback, useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation, useQuery, type CombinedError } from 'urql';
import { errorDetail, fieldErrors } from '../../api/errors';
import { useSession } from '../../auth/SessionProvider';
import { PageTitle } from '../../components/PageTitle';
import { PreviewPanel } from '../../components/preview/PreviewPanel';
import { graphql } from '../../gql';
import { ConstraintRules } from './ConstraintRules';
import { rulePaths, type SchemaRepr } from './fieldTree';
import { draftFromRule, emptyRule, locateRuleError, ruleToRaw, type RuleDraft, type RuleError } from './rules';
import { SchemaSelect } from './SchemaSelect';

const EditorSchemaQuery = graphql(`
  query ConstraintEditorSchema($schema_id: Int!, $root: String) {
    schema(schema_id: $schema_id) { schema_id name roots default_root }
    schema_repr(schema_id: $schema_id, root: $root)
  }
`);
const CreateConstraintSetMutation = graphql(`
  mutation CreateConstraintSet($input: ConstraintSetCreateInput!) {
    create_constraint_set(input: $input) { constraint_id name updated_at }
  }
`);
const UpdateConstraintSetMutation = graphql(`
  mutation UpdateConstraintSet($constraint_id: Int!, $input: ConstraintSetUpdateInput!) {
    update_constraint_set(constraint_id: $constraint_id, input: $input) { constraint_id name rules root description updated_at }
  }
`);
const DeleteConstraintSetMutation = graphql(`
  mutation DeleteConstraintSet($constraint_id: Int!) { delete_constraint_set(constraint_id: $constraint_id) { deleted id } }
`);

export interface SavedSet {
  constraint_id: number;
  name: string;
  description: string;
  schema_id: number;
  root?: string | null;
  rules: Record<string, unknown>[];
  created_by?: number | null;
}

export function ConstraintSetEditor({ saved, initialSchemaId }: { saved: SavedSet | null; initialSchemaId: number | null }) {
  const { can, user } = useSession();
  const navigate = useNavigate();
  const [name, setName] = useState(saved?.name ?? '');
  const [description, setDescription] = useState(saved?.description ?? '');
  const [schemaId, setSchemaId] = useState<number | null>(initialSchemaId);
  const [root, setRoot] = useState<string | null>(saved?.root ?? null);
  const [rules, setRules] = useState<RuleDraft[]>(() => (saved?.rules ?? []).map(draftFromRule));
  const [ruleError, setRuleError] = useState<RuleError | null>(null);
  const [previewRuleError, setPreviewRuleError] = useState<RuleError | null>(null);
  const [missing, setMissing] = useState<Set<string>>(new Set());
  const [nameError, setNameError] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<CombinedError | null>(null);

  const [schemaResult] = useQuery({ query: EditorSchemaQuery, variables: { schema_id: schemaId ?? 0, root }, pause: schemaId == null });
  const [saving, create] = useMutation(CreateConstraintSetMutation);
  const [updating, update] = useMutation(UpdateConstraintSetMutation);
  const [deleting, remove] = useMutation(DeleteConstraintSetMutation);
  const schema = schemaResult.data?.schema;
  const repr = schemaResult.data?.schema_repr as SchemaRepr | undefined;
  const paths = useMemo(() => (repr ? rulePaths(repr.fields) : []), [repr]);

  // the rules as they stand, picked fields only: what the live preview applies
  const liveRules = useMemo(() => {
    const byPath = new Map(paths.map((p) => [p.path, p]));
    return rules.filter((r) => r.path).map((r) => ruleToRaw(r, byPath.get(r.path ?? '')));
  }, [rules, paths]);
  const sentRules = useMemo(() => rules.filter((r) => r.path), [rules]);
  const onPreviewError = useCallback((error: CombinedError | undefined) => {
    const located = error ? locateRuleError(errorDetail(error), fieldErrors(error), sentRules) : null;
    // the index is of the rules sent (picked ones); the list shown counts every row
    const shown = located ? { ...located, index: rules.indexOf(sentRules[located.index]!) } : null;
    setPreviewRuleError(shown);
    return shown != null;
  }, [rules, sentRules]);

  const mine = saved == null || (user != null && saved.created_by === user.id);
  const canEdit = saved == null ? can('constraint.create') : mine || can('constraint.change');
  const title = saved ? saved.name : 'New constraint set';

  const changeRule = (index: number, next: RuleDraft) => {
    setRules((all) => all.map((r, i) => (i === index ? next : r)));
    if (ruleError?.index === index) setRuleError(null);
    if (missing.has(next.key) && next.path) setMissing((m) => new Set([...m].filter((k) => k !== next.key)));
  };
  const removeRule = (index: number) => {
    setRules((all) => all.filter((_, i) => i !== index));
    setRuleError(null);
  };

  const save = async () => {
    setSaveError(null);
    setRuleError(null);
    const unpicked = new Set(rules.filter((r) => !r.path).map((r) => r.key));
    setMissing(unpicked);
    setNameError(name.trim() ? null : 'Enter a name.');
    if (!name.trim() || unpicked.size || schemaId == null) return;
    const byPath = new Map(paths.map((p) => [p.path, p]));
    const raw = rules.map((r) => ruleToRaw(r, byPath.get(r.path ?? '')));
    const body = { name: name.trim(), description, root: root ?? null, rules: raw };
    const result = saved
      ? await update({ constraint_id: saved.constraint_id, input: body })
      : await create({ input: { ...body, schema_id: schemaId } });
    if (result.error) {
      const located = locateRuleError(errorDetail(result.error), fieldErrors(result.error), rules);
      if (located) setRuleError(located);
      else if (fieldErrors(result.error).some((f) => f.field === 'name')) setNameError(errorDetail(result.error));
      else setSaveError(result.error);
      return;
    }
    notifications.show({ color: 'green', title: 'Constraint set saved', message: `${name.trim()} was saved.` });
    const created = result.data && 'create_constraint_set' in result.data ? result.data.create_constraint_set : null;
    if (created) navigate(`/library/constraints/${created.constraint_id}`, { replace: true });
  };

  const confirmDelete = () => saved && modals.openConfirmModal({
    title: `Delete ${saved.name}?`,
    children: <Text size="sm">Datasets already generated keep their data; a set used by datasets cannot be deleted.</Text>,
    labels: { confirm: 'Delete', cancel: 'Cancel' },
    confirmProps: { color: 'red' },
    onConfirm: async () => {
      const result = await remove({ constraint_id: saved.constraint_id });
      if (result.data?.delete_constraint_set.deleted) {
        notifications.show({ color: 'green', title: 'Constraint set deleted', message: `${saved.name} was deleted.` });
        navigate('/library?tab=constraints');
      } else if (result.error) setSaveError(result.error);
    },
  });

  return (
    <Stack gap="md">
      <Breadcrumbs>
        <Anchor component={Link} to="/library?tab=constraints" size="sm">Library</Anchor>
        {schema && <Anchor component={Link} to={`/library/schemas/${schema.schema_id}`} size="sm">{schema.name}</Anchor>}
        <Text size="sm">{title}</Text>
      </Breadcrumbs>
      <PageTitle
        actions={canEdit ? (
          <>
            {saved && (
              <Button color="red" variant="light" leftSection={<IconTrash size={16} aria-hidden />} onClick={confirmDelete}
                loading={deleting.fetching}>
                Delete constraint set
              </Button>
            )}
            <Button leftSection={<IconDeviceFloppy size={16} aria-hidden />} onClick={save}
              loading={saving.fetching || updating.fetching} disabled={schemaId == null}>
              Save constraint set
            </Button>
          </>
        ) : undefined}
      >
        {title}
      </PageTitle>
      {!canEdit && saved && <Alert color="blue" variant="light">You can read this constraint set; only its creator or a Manager can change it.</Alert>}
      {saveError && <Alert color="red" role="alert" title="Not saved">{errorDetail(saveError)}</Alert>}
      <Paper withBorder p="md" radius="md">
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} maxLength={200}
            error={nameError} readOnly={!canEdit} />
          {saved
            ? <TextInput label="Schema" value={schema?.name ?? `Schema ${saved.schema_id}`} readOnly
              description="Fixed once the set is created" />
            : <SchemaSelect value={schemaId} valueLabel={schema?.name} required
              onChange={(id) => { setSchemaId(id); setRoot(null); setRules([]); setRuleError(null); }} />}
          <Textarea label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)}
            autosize minRows={1} maxRows={4} readOnly={!canEdit} />
          {schema && schema.roots.length > 1 && (
            <Select label="Root" data={schema.roots} value={root ?? schema.default_root} allowDeselect={false} searchable
              onChange={(v) => setRoot(v)} readOnly={!canEdit} description="The record root the rules' paths start from" />
          )}
        </SimpleGrid>
      </Paper>
      <Paper withBorder p="md" radius="md" component="section" aria-labelledby="rules-title">
        <Stack gap="sm">
          <Group justify="space-between">
            <Title order={2} size="h4" id="rules-title">Rules</Title>
            {canEdit && (
              <Button variant="light" leftSection={<IconPlus size={16} aria-hidden />} disabled={schemaId == null}
                onClick={() => setRules((all) => [...all, emptyRule()])}>
                Add rule
              </Button>
            )}
          </Group>
          {schemaId == null && <Text c="dimmed" size="sm">Pick the schema first: rules name its fields.</Text>}
          {schemaResult.error && <Alert color="red" role="alert">{errorDetail(schemaResult.error)}</Alert>}
          <ConstraintRules rules={rules} paths={paths} loadingPaths={schemaResult.fetching && !repr} error={ruleError ?? previewRuleError}
            missing={missing} readOnly={!canEdit} onChange={changeRule} onRemove={removeRule} />
        </Stack>
      </Paper>
      {schemaId != null && (
        <Stack gap={4}>
          <Text size="sm" c="dimmed">The preview applies the rules as they are now, saved or not.</Text>
          <PreviewPanel schemaId={schemaId} constraintSetId={saved?.constraint_id ?? null}
            params={root ? { root } : undefined} rules={liveRules} onError={onPreviewError} />
        </Stack>
      )}
    </Stack>
  );
}
