// The first records of a schema (+ constraint set + params), generated on the server and never
// stored: as a grid (the JSON rendering, a column per field with its schema type) or as the text of
// one format. Used in the library, the constraint editor and the dataset form.
import {
  ActionIcon, Alert, Box, Button, Code, CopyButton, Group, Loader, NumberInput, Paper, ScrollArea, SegmentedControl,
  Stack, Text, Title, Tooltip,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconCheck, IconCopy, IconRefresh } from '@tabler/icons-react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { type CombinedError, useQuery } from 'urql';
import { errorCode, errorDetail } from '../../api/errors';
import { graphql } from '../../gql';
import { FORMATS } from '../datasets/datasetFields';
import { PreviewGrid } from './PreviewGrid';
import { labelsByRecord, labelText, recordsOf } from './records';

const PreviewQuery = graphql(`
  query Preview($schema_id: Int!, $constraint_set_id: Int, $params: JSON, $count: Int!, $format: String!, $rules: JSON) {
    preview(schema_id: $schema_id, constraint_set_id: $constraint_set_id, params: $params, count: $count, format: $format,
            rules: $rules) {
      schema_id format media_type count seed content elapsed_ms
      labels { record pointer keyword schema_pointer rule detail }
    }
  }
`);

const SchemaFieldTypesQuery = graphql(`
  query SchemaFieldTypes($schema_id: Int!, $root: String) { schema_repr(schema_id: $schema_id, root: $root) }
`);

// the grid, then the text of each output format (the schema's OutputFormat enum)
const VIEWS = [{ value: 'grid', label: 'Grid' }, ...FORMATS];
export const PREVIEW_MAX = 100;

interface TypedField {
  path: string;
  type: string;
  format?: string | null;
  children?: TypedField[];
}

/** Field path -> "type" or "type · format"; an array's path keeps "array", its items' type is at
 * "path[]" (the items share the array's path). */
function fieldTypes(repr: unknown): Map<string, string> {
  const types = new Map<string, string>();
  const walk = (fields: TypedField[]) => {
    for (const f of fields) {
      const key = types.has(f.path) && types.get(f.path) === 'array' && !types.has(`${f.path}[]`) ? `${f.path}[]` : f.path;
      if (!types.has(key)) types.set(key, f.format && f.format !== f.type ? `${f.type} · ${f.format}` : f.type);
      if (f.children) walk(f.children);
    }
  };
  const fields = repr && typeof repr === 'object' ? (repr as { fields?: TypedField[] }).fields : undefined;
  if (Array.isArray(fields)) walk(fields);
  return types;
}

export interface PreviewPanelProps {
  schemaId: number;
  constraintSetId?: number | null;
  params?: Record<string, unknown>;
  /** Unsaved rules, applied instead of the constraint set's (the editor's live preview). */
  rules?: Record<string, unknown>[] | null;
  /** Told of every answer's error (undefined once one succeeds); returns true when it shows the
   * error itself (at the rule it names), so the panel only points there. */
  onError?: (error: CombinedError | undefined) => boolean;
}

/** The server's sentence, or a plain one while the server predates the preview query (the
 *  document does not validate against its schema). */
function previewError(error: CombinedError | undefined): string | null {
  if (errorCode(error) === 'graphql_validation') return 'Preview is not available on this server yet.';
  return errorDetail(error);
}

// a POST: unsaved rules would make a long GET address
const PREVIEW_CONTEXT = { preferGetMethod: false as const };

export function PreviewPanel({ schemaId, constraintSetId = null, params, rules = null, onError }: PreviewPanelProps) {
  const [count, setCount] = useState<number | string>(10);
  const [view, setView] = useState('grid');
  const format = view === 'grid' ? 'json' : view;
  const paramsKey = JSON.stringify(params ?? {});
  const rulesKey = rules == null ? null : JSON.stringify(rules);
  const countValid = typeof count === 'number' && Number.isInteger(count) && count >= 1 && count <= PREVIEW_MAX;
  // an out-of-range count keeps the last records shown (and says why) rather than asking again
  const lastValid = useRef(10);
  if (countValid) lastValid.current = count;
  const shownCount = countValid ? count : lastValid.current;
  // one debounced request per pause in typing, whatever changed
  const [request] = useDebouncedValue(
    useMemo(() => ({ count: shownCount, format, paramsKey, rulesKey, constraintSetId }),
      [shownCount, format, paramsKey, rulesKey, constraintSetId]),
    400,
  );
  const variables = useMemo(
    () => ({
      schema_id: schemaId,
      constraint_set_id: request.constraintSetId ?? null,
      params: JSON.parse(request.paramsKey) as Record<string, unknown>,
      rules: request.rulesKey == null ? null : (JSON.parse(request.rulesKey) as unknown),
      count: typeof request.count === 'number' ? request.count : 10,
      format: request.format,
    }),
    [schemaId, request],
  );
  const [{ data, fetching, error, stale }, refetch] = useQuery({
    query: PreviewQuery,
    variables,
    requestPolicy: 'network-only',
    context: PREVIEW_CONTEXT,
  });
  const preview = data?.preview;
  const [shownElsewhere, setShownElsewhere] = useState(false);
  // a superseded request is torn down (urql aborts its fetch), so only the latest answer lands here
  useEffect(() => {
    if (fetching) return;
    setShownElsewhere(onError ? onError(error) : false);
  }, [error, fetching, onError]);
  const detail = shownElsewhere && error
    ? 'A rule needs fixing: see the message at the rule.'
    : previewError(error);
  const root = params && typeof params.root === 'string' ? params.root : null;
  const [repr] = useQuery({ query: SchemaFieldTypesQuery, variables: { schema_id: schemaId, root }, pause: view !== 'grid' });
  const types = useMemo(() => fieldTypes(repr.data?.schema_repr), [repr.data]);
  const records = useMemo(
    () => (view === 'grid' && preview && preview.format === 'json' ? recordsOf(preview.content) : null),
    [view, preview],
  );
  const tooMany = typeof count === 'number' && count > PREVIEW_MAX;
  const labels = useMemo(() => labelsByRecord(preview?.labels ?? []), [preview]);

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="preview-title">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Title order={2} size="h4" id="preview-title">Preview</Title>
          <Button variant="default" size="xs" leftSection={<IconRefresh size={16} aria-hidden />}
            onClick={() => refetch({ requestPolicy: 'network-only' })} loading={fetching}>
            Refresh preview
          </Button>
        </Group>
        <Group align="flex-end" wrap="wrap" gap="sm">
          <NumberInput label="Records" min={1} max={PREVIEW_MAX} clampBehavior="none" allowDecimal={false}
            allowNegative={false} value={count} onChange={setCount} w={110} />
          <Box>
            <Text component="span" size="sm" fw={500} id="preview-format-label" display="block" mb={4}>View</Text>
            {/* the (invisible) radios lie over their labels so they take the clicks and can be checked like any radio */}
            <SegmentedControl data={VIEWS} value={view} onChange={setView} aria-labelledby="preview-format-label"
              size="sm" styles={{ input: { width: '100%', height: '100%', top: 0, left: 0, margin: 0, zIndex: 5, cursor: 'pointer' } }} />
          </Box>
        </Group>
        {!countValid && (
          <Alert color="yellow" variant="light" role="status" title={tooMany ? 'At most 100 records in a preview' : 'No preview'}>
            {tooMany
              ? `A preview shows up to ${PREVIEW_MAX} records; the ${preview ? `${preview.count} ` : ''}below are the last shown. Create a dataset for ${Number(count).toLocaleString()}.`
              : `Ask for 1 to ${PREVIEW_MAX} records.`}
          </Alert>
        )}
        {detail && (
          <Alert color="red" variant="light" title="No preview" role="alert">{detail}</Alert>
        )}
        {!preview && fetching && !detail && (
          <Group gap="xs" role="status" aria-label="Loading preview"><Loader size="sm" aria-hidden /><Text size="sm" c="dimmed">Generating…</Text></Group>
        )}
        {preview && !detail && (
          <>
            {records ? (
              <ScrollArea.Autosize mah={480} type="auto" offsetScrollbars style={{ opacity: stale || fetching ? 0.6 : 1 }}>
                <PreviewGrid records={records} types={types} label="Preview records" labels={labels} />
              </ScrollArea.Autosize>
            ) : (
            <Box pos="relative" style={{ opacity: stale || fetching ? 0.6 : 1 }}>
              <CopyButton value={preview.content}>
                {({ copied, copy }) => (
                  <Tooltip label={copied ? 'Copied' : 'Copy'} withArrow position="left">
                    <ActionIcon variant="default" onClick={copy} aria-label="Copy preview"
                      pos="absolute" top={8} right={20} style={{ zIndex: 1 }}>
                      {copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}
                    </ActionIcon>
                  </Tooltip>
                )}
              </CopyButton>
              <ScrollArea.Autosize mah={420} type="auto" offsetScrollbars>
                <Code block role="region" aria-label={`Preview content (${preview.format.toUpperCase()})`} tabIndex={0}
                  style={{ whiteSpace: 'pre', fontFamily: 'var(--mantine-font-family-monospace)' }}>
                  {preview.content}
                </Code>
              </ScrollArea.Autosize>
            </Box>
            )}
            {!records && labels.size > 0 && (
              <Box component="ul" aria-label="Invalid records" m={0} pl="lg">
                {[...labels].map(([record, ls]) => (
                  <Text component="li" size="xs" key={record}>Record {record + 1} {ls.map(labelText).join('; ')}</Text>
                ))}
              </Box>
            )}
            <Text size="sm" c="dimmed" aria-live="polite">
              {labels.size > 0 && `${labels.size.toLocaleString()} invalid, `}
              {preview.count.toLocaleString()} {preview.count === 1 ? 'record' : 'records'} in{' '}
              {preview.elapsed_ms.toLocaleString(undefined, { maximumFractionDigits: 0 })} ms, seed {preview.seed}
            </Text>
          </>
        )}
      </Stack>
    </Paper>
  );
}

export default PreviewPanel;
