// The size of the coverage set a dataset would start with, asked of the server (coverage_plan) as
// the form's schema, constraint set, mode and params change, before anything is created.
import { Alert, Group, Loader, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMemo } from 'react';
import { useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { graphql } from '../../gql';

const CoveragePlanQuery = graphql(`
  query CoveragePlan($schema_id: Int!, $constraint_set_id: Int, $mode: String!, $params: JSON) {
    coverage_plan(schema_id: $schema_id, constraint_set_id: $constraint_set_id, mode: $mode, params: $params)
  }
`);

interface Target {
  record?: number | null;
  reason?: string;
}

export interface CoveragePlan {
  mode: string;
  records: number;
  total: number;
  covered: number;
  targets: Target[];
}

/** The plan's JSON read defensively (it is a JSON scalar). */
export function readPlan(value: unknown): CoveragePlan | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  if (typeof v.records !== 'number' || typeof v.total !== 'number' || typeof v.covered !== 'number') return null;
  return {
    mode: String(v.mode ?? ''), records: v.records, total: v.total, covered: v.covered,
    targets: Array.isArray(v.targets) ? (v.targets as Target[]) : [],
  };
}

interface Props {
  schemaId: number;
  constraintSetId: number | null;
  mode: string;
  /** The form's params, without coverage and the invalid records (the mode is its own argument), with
   *  record_count: the dataset's record count, which the server plans the set for. */
  params: Record<string, unknown>;
  recordCount: number | null;
}

// a POST: the params may be long
const CONTEXT = { preferGetMethod: false as const };

export function CoveragePlanSummary({ schemaId, constraintSetId, mode, params, recordCount }: Props) {
  const key = JSON.stringify({ schemaId, constraintSetId, mode, params });
  const [request] = useDebouncedValue(key, 300);
  const variables = useMemo(() => {
    const r = JSON.parse(request) as { schemaId: number; constraintSetId: number | null; mode: string; params: Record<string, unknown> };
    return { schema_id: r.schemaId, constraint_set_id: r.constraintSetId, mode: r.mode, params: r.params };
  }, [request]);
  const [{ data, fetching, error }] = useQuery({ query: CoveragePlanQuery, variables, requestPolicy: 'network-only', context: CONTEXT });
  const plan = readPlan(data?.coverage_plan);
  const unreachable = plan ? plan.targets.filter((t) => t.record == null).length : 0;
  const busy = fetching || request !== key;

  if (error && !busy) {
    return <Alert color="red" variant="light" role="alert" title="No coverage set">{errorDetail(error)}</Alert>;
  }
  return (
    <div role="status" aria-live="polite" aria-label="Coverage set">
      {busy && !plan && (
        <Group gap="xs"><Loader size="xs" aria-hidden /><Text size="sm" c="dimmed">Working out the coverage set…</Text></Group>
      )}
      {plan && (
        <Text size="sm" style={{ opacity: busy ? 0.6 : 1 }}>
          The coverage set is <b>{plan.records.toLocaleString()} {plan.records === 1 ? 'record' : 'records'}</b>, covering{' '}
          {plan.covered.toLocaleString()} of {plan.total.toLocaleString()} targets
          {unreachable ? `; ${unreachable.toLocaleString()} unreachable` : ''}.
          {recordCount != null && recordCount < plan.records && (
            <Text span size="sm" c="red.8" fw={500}> Ask for at least {plan.records.toLocaleString()} records.</Text>
          )}
          {recordCount != null && recordCount >= plan.records && (
            <> The {recordCount.toLocaleString()} records asked for start with it{recordCount > plan.records ? '; the rest are random' : ''}.</>
          )}
        </Text>
      )}
    </div>
  );
}
