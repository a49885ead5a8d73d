// Datasets with live progress: one server-paginated `datasets` query, kept current by the
// `dataset_updates` subscription (graphql-transport-ws), and polled every 2 s instead whenever the
// subscription has failed or has not yet proven it delivers (a socket that cannot connect only
// errors after graphql-ws has used up its retries, so silence alone proves nothing).
import { useDocumentVisibility } from '@mantine/hooks';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useQuery, useSubscription, type CombinedError } from 'urql';
import { graphql } from '../../gql';
import type { LiveDataset } from './datasetFields';

const LiveDatasetsQuery = graphql(`
  query LiveDatasets($project_id: Int, $status: String, $limit: Int!, $offset: Int!) {
    datasets(project_id: $project_id, status: $status, limit: $limit, offset: $offset) {
      total
      items { ...LiveDatasetFields }
    }
  }
`);

const DatasetUpdatesSubscription = graphql(`
  subscription DatasetUpdates($project_id: Int) {
    dataset_updates(project_id: $project_id) { ...LiveDatasetFields }
  }
`);

export const POLL_MS = 2000;
const REFETCH_COALESCE_MS = 500;

// Set once any subscription of this page session has delivered an update: the socket works, so
// hooks mounted later need not poll while they wait for their first event.
let subscriptionProven = false;

export interface LiveDatasetsOptions {
  projectId?: number | null;
  status?: string | null;
  limit: number;
  offset?: number;
  pause?: boolean;
}

export interface LiveDatasets {
  items: LiveDataset[];
  total: number;
  /** True until the first answer (later refreshes keep showing the last one). */
  loading: boolean;
  error: CombinedError | undefined;
  /** 'live' while the subscription delivers, 'polling' while the 2 s fallback runs. */
  mode: 'live' | 'polling';
  refresh: () => void;
}

const STATUS_RANK: Record<string, number> = { queued: 0, running: 1, completed: 2, failed: 2, cancelled: 2 };

/** The fresher of two snapshots of one dataset: a dataset only moves forward within an attempt. */
export function fresher<T extends LiveDataset>(a: T, b: T): T {
  const key = (d: LiveDataset) => [d.attempt ?? 0, STATUS_RANK[d.status] ?? 0, d.progress, d.records_generated];
  const ka = key(a);
  const kb = key(b);
  for (let i = 0; i < ka.length; i += 1) {
    if (ka[i]! !== kb[i]!) return ka[i]! > kb[i]! ? a : b;
  }
  return b;
}

type Updates = Record<number, LiveDataset>;

export function useLiveDatasets({ projectId = null, status = null, limit, offset = 0, pause = false }: LiveDatasetsOptions): LiveDatasets {
  const variables = useMemo(() => ({ project_id: projectId, status, limit, offset }), [projectId, status, limit, offset]);
  // an empty page carries no Dataset typename, so say it: a created dataset must refresh it
  const context = useMemo(() => ({ additionalTypenames: ['Dataset'] }), []);
  const [result, reexecute] = useQuery({ query: LiveDatasetsQuery, variables, pause, context });
  const refresh = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);

  const [sub] = useSubscription(
    { query: DatasetUpdatesSubscription, variables: { project_id: projectId }, pause },
    (prev: Updates | undefined, event) => {
      const d = event.dataset_updates;
      return { ...prev, [d.dataset_id]: prev?.[d.dataset_id] ? fresher(prev[d.dataset_id]!, d) : d };
    },
  );
  const updates = sub.data;
  const failed = !!sub.error;
  const [proven, setProven] = useState(subscriptionProven);
  useEffect(() => {
    if (updates && !failed) {
      subscriptionProven = true;
      setProven(true);
    }
    if (failed) subscriptionProven = false;
  }, [updates, failed]);
  const mode = proven && !failed ? 'live' : 'polling';

  const listed = result.data?.datasets.items;
  const items = useMemo(
    () => (listed ?? []).map((d) => (updates?.[d.dataset_id] ? fresher(d, updates[d.dataset_id]!) : d)),
    [listed, updates],
  );

  // An update the list cannot place (a new dataset, or one that left this status filter) means
  // the page itself changed: re-read it, coalescing bursts of updates into one request.
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    if (!updates || !listed) return;
    const byId = new Map(listed.map((d) => [d.dataset_id, d]));
    const stale = Object.values(updates).some((u) => {
      const shown = byId.get(u.dataset_id);
      if (!shown) return offset === 0 && (status === null || u.status === status);
      return u.status !== shown.status;
    });
    if (stale && !timer.current) {
      timer.current = setTimeout(() => {
        timer.current = null;
        refresh();
      }, REFETCH_COALESCE_MS);
    }
  }, [updates, listed, offset, status, refresh]);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);

  const visible = useDocumentVisibility() === 'visible';
  useEffect(() => {
    if (mode !== 'polling' || !visible || pause) return undefined;
    const id = window.setInterval(refresh, POLL_MS);
    return () => window.clearInterval(id);
  }, [mode, visible, pause, refresh]);

  return {
    items,
    total: result.data?.datasets.total ?? 0,
    loading: !result.data && (result.fetching || !result.error) && !pause,
    error: result.error,
    mode,
    refresh,
  };
}
