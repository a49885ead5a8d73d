// The first records of a schema (+ constraint set + params) in one format, generated on the server
// and never stored. Used in the library and in the dataset form.
import {
  ActionIcon, Alert, Box, Button, Code, CopyButton, Group, Loader, NumberInput, Paper, ScrollArea, SegmentedControl,
  Stack, Text, Title, Tooltip,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconCheck, IconCopy, IconRefresh } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import { type CombinedError, useQuery } from 'urql';
import { errorCode, errorDetail } from '../../api/errors';
import { graphql } from '../../gql';

const PreviewQuery = graphql(`
  query Preview($schema_id: Int!, $constraint_set_id: Int, $params: JSON, $count: Int!, $format: String!) {
    preview(schema_id: $schema_id, constraint_set_id: $constraint_set_id, params: $params, count: $count, format: $format) {
      schema_id format media_type count seed content elapsed_ms
    }
  }
`);

const FORMATS = [
  { value: 'json', label: 'JSON' },
  { value: 'csv', label: 'CSV' },
  { value: 'xml', label: 'XML' },
  { value: 'sql', label: 'SQL' },
];
export const PREVIEW_MAX = 100;

export interface PreviewPanelProps {
  schemaId: number;
  constraintSetId?: number | null;
  params?: Record<string, unknown>;
}

/** The server's sentence, or a plain one while the server predates the preview query (the
 *  document does not validate against its schema). */
function previewError(error: CombinedError | undefined): string | null {
  if (errorCode(error) === 'graphql_validation') return 'Preview is not available on this server yet.';
  return errorDetail(error);
}

export function PreviewPanel({ schemaId, constraintSetId = null, params }: PreviewPanelProps) {
  const [count, setCount] = useState<number | string>(10);
  const [format, setFormat] = useState('json');
  const paramsKey = JSON.stringify(params ?? {});
  const countValid = typeof count === 'number' && Number.isInteger(count) && count >= 1 && count <= PREVIEW_MAX;
  // one debounced request per pause in typing, whatever changed
  const [request] = useDebouncedValue(
    useMemo(() => ({ count, format, paramsKey, constraintSetId }), [count, format, paramsKey, constraintSetId]),
    400,
  );
  const variables = useMemo(
    () => ({
      schema_id: schemaId,
      constraint_set_id: request.constraintSetId ?? null,
      params: JSON.parse(request.paramsKey) as Record<string, unknown>,
      count: typeof request.count === 'number' ? request.count : 10,
      format: request.format,
    }),
    [schemaId, request],
  );
  const [{ data, fetching, error, stale }, refetch] = useQuery({
    query: PreviewQuery,
    variables,
    pause: !countValid,
    requestPolicy: 'network-only',
  });
  const preview = data?.preview;
  const detail = previewError(error);

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="preview-title">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Title order={2} size="h4" id="preview-title">Preview</Title>
          <Button variant="default" size="xs" leftSection={<IconRefresh size={16} aria-hidden />}
            onClick={() => refetch({ requestPolicy: 'network-only' })} loading={fetching} disabled={!countValid}>
            Refresh preview
          </Button>
        </Group>
        <Group align="flex-end" wrap="wrap" gap="sm">
          <NumberInput label="Records" min={1} max={PREVIEW_MAX} clampBehavior="strict" allowDecimal={false}
            allowNegative={false} value={count} onChange={setCount} w={110}
            error={countValid ? undefined : `From 1 to ${PREVIEW_MAX}.`} />
          <Box>
            <Text component="span" size="sm" fw={500} id="preview-format-label" display="block" mb={4}>Format</Text>
            {/* the (invisible) radios lie over their labels so they take the clicks and can be checked like any radio */}
            <SegmentedControl data={FORMATS} value={format} onChange={setFormat} aria-labelledby="preview-format-label"
              size="sm" styles={{ input: { width: '100%', height: '100%', top: 0, left: 0, margin: 0, zIndex: 5, cursor: 'pointer' } }} />
          </Box>
        </Group>
        {detail && (
          <Alert color="red" variant="light" title="No preview" role="alert">{detail}</Alert>
        )}
        {!preview && fetching && !detail && (
          <Group gap="xs"><Loader size="sm" aria-label="Loading preview" /><Text size="sm" c="dimmed">Generating…</Text></Group>
        )}
        {preview && !detail && (
          <>
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
            <Text size="sm" c="dimmed" aria-live="polite">
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
