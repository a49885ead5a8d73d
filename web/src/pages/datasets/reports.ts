// A completed dataset's side files, read over REST with the session's token: the invalid records'
// labels (GET /data/{id}?format=labels, NDJSON) and the coverage report (format=coverage, JSON).
import { useEffect, useState } from 'react';
import { getToken } from '../../api/session';
import type { InvalidLabel } from '../../components/preview/records';

export interface CoverageTarget {
  pointer: string;
  kind: string;
  value: unknown;
  record: number | null;
  reason?: string;
}

export interface CoverageReport {
  mode: string;
  records: number;
  total: number;
  covered: number;
  targets: CoverageTarget[];
}

export type Loaded<T> = { state: 'loading' } | { state: 'error'; message: string } | { state: 'done'; value: T };

async function problem(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { detail?: unknown };
    if (typeof body.detail === 'string') return body.detail;
  } catch {
    // not JSON: the status says it
  }
  return `The server answered ${response.status}.`;
}

async function read(datasetId: number, format: string): Promise<Response> {
  const token = getToken();
  return fetch(`/api/v1/data/${datasetId}?format=${encodeURIComponent(format)}`, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
}

export function parseLabels(text: string): InvalidLabel[] {
  return text.split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as InvalidLabel);
}

export function parseCoverage(value: unknown): CoverageReport | null {
  if (!value || typeof value !== 'object') return null;
  const v = value as Record<string, unknown>;
  if (typeof v.total !== 'number' || typeof v.covered !== 'number' || !Array.isArray(v.targets)) return null;
  return {
    mode: String(v.mode ?? ''), records: typeof v.records === 'number' ? v.records : 0,
    total: v.total, covered: v.covered, targets: v.targets as CoverageTarget[],
  };
}

/** Read one side file once `enabled` (the dataset completed); `parse` turns the body into T. */
export function useDataFile<T>(datasetId: number, format: string, enabled: boolean,
  parse: (body: string) => T): Loaded<T> | null {
  const [loaded, setLoaded] = useState<Loaded<T> | null>(null);
  useEffect(() => {
    if (!enabled) return undefined;
    let live = true;
    setLoaded({ state: 'loading' });
    read(datasetId, format)
      .then(async (response) => {
        const next: Loaded<T> = response.ok
          ? { state: 'done', value: parse(await response.text()) }
          : { state: 'error', message: await problem(response) };
        if (live) setLoaded(next);
      })
      .catch((err: unknown) => {
        if (live) setLoaded({ state: 'error', message: err instanceof SyntaxError ? 'The file could not be read.' : 'The server could not be reached.' });
      });
    return () => { live = false; };
    // parse is fixed for a call site: reading again when it changes would loop
  }, [datasetId, format, enabled]);
  return loaded;
}
