// The new-dataset form, used from a project (project fixed) and from the dashboard (project picked
// here). The server validates everything again; its 422 detail is shown at the field it names.
import {
  Alert, Box, Button, Checkbox, Group, NumberInput, Select, SimpleGrid, Stack, Switch, TagsInput, Text, TextInput,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconEye } from '@tabler/icons-react';
import { useEffect, useMemo, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { useSession } from '../../auth/SessionProvider';
import { graphql } from '../../gql';
import { PreviewPanel } from '../preview/PreviewPanel';
import { CoveragePlanSummary } from './CoveragePlanSummary';
import { FORMATS, LOCALES } from './datasetFields';
import { placeDatasetErrors, type DatasetFormField } from './datasetFormErrors';
import { ProjectPicker } from './ProjectPicker';

const DatasetFormProjectQuery = graphql(`
  query DatasetFormProject($project_id: Int!) {
    project(project_id: $project_id) {
      project_id name my_role
      schemas { schema_id name type default_root satisfiable problem }
    }
  }
`);

const DatasetFormConstraintSetsQuery = graphql(`
  query DatasetFormConstraintSets($schema_id: Int!) {
    constraint_sets(schema_id: $schema_id, limit: 100) { total items { constraint_id name root } }
  }
`);

const CreateDatasetMutation = graphql(`
  mutation CreateDataset($input: DatasetCreateInput!) {
    create_dataset(input: $input) { dataset_id name project_id status }
  }
`);

export interface CreatedDataset {
  dataset_id: number;
  name: string;
  project_id: number;
}

interface Props {
  /** The project the dataset goes into; null lets the user pick one. */
  projectId: number | null;
  onCreated: (dataset: CreatedDataset) => void;
  onCancel: () => void;
}

interface Values {
  project: string | null;
  name: string;
  schema: string | null;
  constraintSet: string | null;
  recordCount: number | string;
  formats: string[];
  seed: string;
  locale: string;
  recordsPerFile: number | string;
  deferred: boolean;
  coverage: string | null;
  sqlDialect: string;
  xmlLayout: string;
  invalidRate: number | string;
  invalidKeywords: string[];
}

const COVERAGE = [
  { value: 'each', label: 'Each target (every enum value, boolean, branch and bound once)' },
  { value: 'pairwise', label: 'Pairwise (every pair of values)' },
];
const SQL_DIALECTS = [
  { value: 'postgresql', label: 'PostgreSQL' },
  { value: 'mysql', label: 'MySQL' },
  { value: 'sqlite', label: 'SQLite' },
];
const XML_LAYOUTS = [
  { value: 'container', label: 'One document (every record in <records>)' },
  { value: 'documents', label: 'One document per record' },
];
// JSON Schema keywords an invalid record may break, offered as suggestions (the server takes any)
const BREAKABLE_KEYWORDS = [
  'type', 'enum', 'const', 'required', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'pattern', 'format', 'minItems', 'maxItems', 'uniqueItems', 'additionalProperties',
];

function invalidRateError(v: number | string): string | null {
  if (v === '') return null;
  return typeof v === 'number' && v >= 0 && v <= 1 ? null : 'Enter a share between 0 and 1, e.g. 0.1 for one record in ten.';
}

function seedError(seed: string): string | null {
  if (!seed.trim()) return null;
  if (!/^\d+$/.test(seed.trim())) return 'Use a whole number, or leave it empty for a random seed.';
  return Number(seed.trim()) > Number.MAX_SAFE_INTEGER ? 'Use a seed below 9,007,199,254,740,992.' : null;
}

export function DatasetForm({ projectId, onCreated, onCancel }: Props) {
  const { can } = useSession();
  const [showPreview, setShowPreview] = useState(false);
  const form = useForm<Values>({
    initialValues: {
      project: projectId == null ? null : String(projectId), name: '', schema: null, constraintSet: null,
      recordCount: 1000, formats: ['csv', 'json'], seed: '', locale: 'en_US', recordsPerFile: '', deferred: false,
      coverage: null, sqlDialect: 'postgresql', xmlLayout: 'container', invalidRate: '', invalidKeywords: [],
    },
    validate: {
      project: (v) => (v ? null : 'Pick a project.'),
      name: (v) => (v.trim() ? null : 'Give the dataset a name.'),
      schema: (v) => (v ? null : 'Pick a schema.'),
      recordCount: (v) => (typeof v === 'number' && Number.isInteger(v) && v >= 1 ? null : 'Enter a number of records (1 or more).'),
      formats: (v) => (v.length ? null : 'Pick at least one format.'),
      seed: seedError,
      invalidRate: invalidRateError,
      recordsPerFile: (v) => (v === '' || (typeof v === 'number' && Number.isInteger(v) && v >= 1) ? null : 'Enter a positive whole number, or leave it empty.'),
    },
  });
  const chosenProject = form.values.project ? Number(form.values.project) : null;
  const chosenSchema = form.values.schema ? Number(form.values.schema) : null;
  const [projectResult] = useQuery({
    query: DatasetFormProjectQuery, variables: { project_id: chosenProject ?? 0 }, pause: chosenProject == null,
  });
  const [setsResult] = useQuery({
    query: DatasetFormConstraintSetsQuery, variables: { schema_id: chosenSchema ?? 0 }, pause: chosenSchema == null,
  });
  const [createState, create] = useMutation(CreateDatasetMutation);
  const [general, setGeneral] = useState<string | null>(null);

  const project = projectResult.data?.project;
  const mayCreate = !project || can('dataset.create', project.my_role);
  const schemaOptions = (project?.schemas ?? []).map((s) => ({
    value: String(s.schema_id),
    label: `${s.name} (${s.type === 'xsd' ? 'XSD' : 'JSON Schema'})${s.satisfiable === false ? ' (unsatisfiable)' : ''}`,
  }));
  // a schema the upload check found no record of its default root can be generated from
  const unsatisfiable = (project?.schemas ?? []).find((s) => s.schema_id === chosenSchema && s.satisfiable === false);
  const setOptions = (setsResult.data?.constraint_sets.items ?? []).map((c) => ({ value: String(c.constraint_id), label: c.name }));

  const params = useMemo(() => {
    const out: Record<string, unknown> = { locale: form.values.locale };
    if (form.values.seed.trim() && !seedError(form.values.seed)) out.seed = Number(form.values.seed.trim());
    if (typeof form.values.recordsPerFile === 'number') out.records_per_file = form.values.recordsPerFile;
    if (form.values.coverage) out.coverage = form.values.coverage;
    if (form.values.formats.includes('sql') && form.values.sqlDialect !== 'postgresql') out.sql_dialect = form.values.sqlDialect;
    if (form.values.formats.includes('xml') && form.values.xmlLayout !== 'container') out.xml_layout = form.values.xmlLayout;
    const rate = form.values.invalidRate;
    if (typeof rate === 'number' && rate > 0 && !invalidRateError(rate)) {
      out.invalid_rate = rate;
      if (form.values.invalidKeywords.length) out.invalid_keywords = form.values.invalidKeywords;
    }
    return out;
  }, [form.values.locale, form.values.seed, form.values.recordsPerFile, form.values.coverage, form.values.formats,
    form.values.sqlDialect, form.values.xmlLayout, form.values.invalidRate, form.values.invalidKeywords]);
  // what the coverage plan is asked with: the mode is its own argument; a coverage set is valid records
  const planParams = useMemo(() => {
    const rest = { ...params };
    for (const key of ['coverage', 'invalid_rate', 'invalid_keywords']) delete rest[key];
    // the dataset's record count (the server sizes unique fields' pools by it): the plan is of that dataset
    const count = form.values.recordCount;
    if (typeof count === 'number' && Number.isInteger(count) && count >= 1) rest.record_count = count;
    return rest;
  }, [params, form.values.recordCount]);
  const invalidOn = typeof form.values.invalidRate === 'number' && form.values.invalidRate > 0;
  // a project with one schema: that one, already picked
  const onlySchema = schemaOptions.length === 1 ? schemaOptions[0]!.value : null;
  useEffect(() => {
    if (onlySchema && !form.values.schema) form.setFieldValue('schema', onlySchema);
  }, [onlySchema, form]);

  const submit = form.onSubmit(async (values) => {
    setGeneral(null);
    const result = await create({
      input: {
        project_id: Number(values.project), name: values.name.trim(), schema_id: Number(values.schema),
        constraint_set_id: values.constraintSet ? Number(values.constraintSet) : null,
        record_count: Number(values.recordCount), types: values.formats,
        params: { ...params, ...(values.deferred ? { deferred: true } : {}) },
      },
    });
    const created = result.data?.create_dataset;
    if (created) {
      onCreated(created);
      return;
    }
    const placed = placeDatasetErrors(result.error);
    form.setErrors(placed.fields as Partial<Record<DatasetFormField, string>>);
    setGeneral(placed.general);
  });

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="sm">
        {general && <Alert color="red" role="alert" title="The dataset was not created">{general}</Alert>}
        {projectId == null && (
          <ProjectPicker {...form.getInputProps('project')}
            onChange={(v) => { form.setFieldValue('project', v); form.setFieldValue('schema', null); form.setFieldValue('constraintSet', null); }} />
        )}
        {project && !mayCreate && (
          <Alert color="yellow" role="alert">
            Your project role ({project.my_role}) may not create datasets in {project.name}; it needs edit.
          </Alert>
        )}
        <TextInput label="Name" required data-autofocus placeholder="e.g. Orders for load test" {...form.getInputProps('name')} />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <Select label="Schema" required searchable data={schemaOptions} disabled={chosenProject == null}
            placeholder={chosenProject == null ? 'Pick a project first' : schemaOptions.length ? 'Pick a schema' : 'No schema linked'}
            {...form.getInputProps('schema')}
            onChange={(v) => { form.setFieldValue('schema', v); form.setFieldValue('constraintSet', null); }} />
          <Select label="Constraint set" clearable searchable data={setOptions} disabled={chosenSchema == null}
            placeholder={setOptions.length ? 'None (defaults)' : 'None for this schema'}
            description="Optional: rules for the values" {...form.getInputProps('constraintSet')} />
        </SimpleGrid>
        {unsatisfiable && (
          <Alert color="red" variant="light" title="This schema cannot generate records">
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {unsatisfiable.problem ?? 'The upload check found no way to build a record of its default root.'}
            </Text>
            <Text size="sm" mt={4}>A dataset of its default root will be refused: fix the schema and upload it again.</Text>
          </Alert>
        )}
        {project && schemaOptions.length === 0 && (
          <Text size="sm" c="dimmed">
            No schema is linked to {project.name} yet: link one on the project&apos;s Schemas tab, or upload one in the Library.
          </Text>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <NumberInput label="Record count" required min={1} allowDecimal={false} allowNegative={false}
            description="Up to your tenant's limit" thousandSeparator="," {...form.getInputProps('recordCount')} />
          <NumberInput label="Records per file" min={1} allowDecimal={false} allowNegative={false} thousandSeparator=","
            description="Optional: split each format into files" {...form.getInputProps('recordsPerFile')} />
        </SimpleGrid>
        <Checkbox.Group label="Formats" required {...form.getInputProps('formats')}>
          <Group mt={6} gap="md">
            {FORMATS.map((f) => <Checkbox key={f.value} value={f.value} label={f.label} />)}
          </Group>
        </Checkbox.Group>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput label="Seed" inputMode="numeric" description="Optional: the same seed gives the same data"
            {...form.getInputProps('seed')} />
          <Select label="Locale" data={LOCALES} searchable allowDeselect={false} {...form.getInputProps('locale')} />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <Select label="Coverage" clearable data={COVERAGE} placeholder="None (random records)"
            description="The first records cover the schema's values; the rest are random" {...form.getInputProps('coverage')}
            onChange={(v) => { form.setFieldValue('coverage', v); form.clearFieldError('invalidRate'); }} />
          {form.values.formats.includes('sql') && (
            <Select label="SQL dialect" data={SQL_DIALECTS} allowDeselect={false} {...form.getInputProps('sqlDialect')} />
          )}
          {form.values.formats.includes('xml') && (
            <Select label="XML layout" data={XML_LAYOUTS} allowDeselect={false} {...form.getInputProps('xmlLayout')} />
          )}
        </SimpleGrid>
        {form.values.coverage && chosenSchema != null && (
          <CoveragePlanSummary schemaId={chosenSchema} mode={form.values.coverage} params={planParams}
            constraintSetId={form.values.constraintSet ? Number(form.values.constraintSet) : null}
            recordCount={typeof form.values.recordCount === 'number' ? form.values.recordCount : null} />
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <NumberInput label="Invalid rate" min={0} max={1} step={0.05} decimalScale={3} allowNegative={false} clampBehavior="none"
            placeholder="0 (all records valid)"
            description="Share of records that break one constraint each, labelled (0 to 1)" {...form.getInputProps('invalidRate')} />
          <TagsInput label="Invalid keywords" data={BREAKABLE_KEYWORDS} disabled={!invalidOn} clearable
            placeholder={invalidOn ? 'Any keyword' : 'Set an invalid rate first'}
            description="Optional: the JSON Schema keywords they may break" {...form.getInputProps('invalidKeywords')} />
        </SimpleGrid>
        <Switch label="Start later" description="The dataset waits in the queue until someone presses Start"
          {...form.getInputProps('deferred', { type: 'checkbox' })} />
        <div>
          <Button variant="default" leftSection={<IconEye size={16} aria-hidden />} disabled={chosenSchema == null}
            aria-expanded={showPreview} onClick={() => setShowPreview((v) => !v)}>
            Preview
          </Button>
          {showPreview && chosenSchema != null && (
            <Box mt="sm">
              <PreviewPanel schemaId={chosenSchema}
                constraintSetId={form.values.constraintSet ? Number(form.values.constraintSet) : null} params={params} />
            </Box>
          )}
        </div>
        <Group justify="flex-end" gap="sm" mt="xs">
          <Button variant="default" onClick={onCancel}>Cancel</Button>
          <Button type="submit" loading={createState.fetching} disabled={!mayCreate}>Create dataset</Button>
        </Group>
      </Stack>
    </form>
  );
}
