// Shaping the analytics answer for the charts: every day of the period (the server sends only days
// that have datasets), one column per status, and the labels and colours of statuses and periods.
import type { AnalyticsPeriod, AnalyticsQuery } from '../../gql/graphql';

export type AnalyticsData = AnalyticsQuery['analytics'];

export const PERIODS: { value: AnalyticsPeriod; label: string; days: number }[] = [
  { value: 'LAST_7_DAYS', label: '7 days', days: 7 },
  { value: 'LAST_30_DAYS', label: '30 days', days: 30 },
  { value: 'LAST_90_DAYS', label: '90 days', days: 90 },
  { value: 'LAST_365_DAYS', label: '365 days', days: 365 },
];

/** Stacking order (bottom first) and colour of every dataset status. */
export const STATUSES: { name: string; label: string; color: string }[] = [
  { name: 'completed', label: 'Completed', color: 'teal.6' },
  { name: 'failed', label: 'Failed', color: 'red.6' },
  { name: 'cancelled', label: 'Cancelled', color: 'gray.5' },
  { name: 'expired', label: 'Expired', color: 'grape.5' },
  { name: 'running', label: 'Running', color: 'blue.6' },
  { name: 'queued', label: 'Queued', color: 'yellow.5' },
];

export interface DayRow {
  day: string;
  label: string;
  records: number;
  datasets: number;
  [status: string]: string | number;
}

function utcDay(iso: string): Date {
  return new Date(`${iso.slice(0, 10)}T00:00:00Z`);
}

export function dayLabel(iso: string): string {
  return utcDay(iso).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** One row per day from period_start to period_end (UTC), with a count per status and the records. */
export function perDay(data: AnalyticsData): { rows: DayRow[]; statuses: typeof STATUSES } {
  const byDay = new Map<string, DayRow>();
  const end = utcDay(data.period_end).getTime();
  for (let t = utcDay(data.period_start).getTime(); t <= end; t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    const row: DayRow = { day, label: dayLabel(day), records: 0, datasets: 0 };
    for (const s of STATUSES) row[s.name] = 0;
    byDay.set(day, row);
  }
  const seen = new Set<string>();
  for (const r of data.per_day) {
    const row = byDay.get(r.day.slice(0, 10));
    if (!row) continue;
    row[r.status] = Number(row[r.status] ?? 0) + r.datasets;
    row.datasets += r.datasets;
    row.records += r.records;
    seen.add(r.status);
  }
  const known = new Set(STATUSES.map((s) => s.name));
  const extra = [...seen].filter((s) => !known.has(s)).map((name) => ({ name, label: name, color: 'indigo.5' }));
  return { rows: [...byDay.values()], statuses: [...STATUSES.filter((s) => seen.has(s.name)), ...extra] };
}

export function formatRate(value: number): string {
  return value >= 100 ? Math.round(value).toLocaleString() : value.toLocaleString(undefined, { maximumFractionDigits: 1 });
}
