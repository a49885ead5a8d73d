// Preview records as grid rows: nested objects become dotted columns ("address.city"), arrays stay
// one column each (their items are a grid of their own, opened on demand).

export type Cell = { kind: 'value'; value: unknown } | { kind: 'array'; items: unknown[] } | { kind: 'missing' };

export interface Grid {
  columns: string[];
  rows: Map<string, Cell>[];
}

function flatten(value: unknown, prefix: string, into: Map<string, Cell>, order: string[], seen: Set<string>) {
  const put = (key: string, cell: Cell) => {
    if (!seen.has(key)) {
      seen.add(key);
      order.push(key);
    }
    into.set(key, cell);
  };
  if (Array.isArray(value)) {
    put(prefix, { kind: 'array', items: value });
  } else if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0 && prefix) put(prefix, { kind: 'value', value });
    for (const [k, v] of entries) flatten(v, prefix ? `${prefix}.${k}` : k, into, order, seen);
  } else {
    put(prefix || 'value', { kind: 'value', value });
  }
}

/** The grid of some records (any JSON values), columns in the order first met. */
export function toGrid(records: unknown[]): Grid {
  const columns: string[] = [];
  const seen = new Set<string>();
  const rows = records.map((r) => {
    const row = new Map<string, Cell>();
    flatten(r, '', row, columns, seen);
    return row;
  });
  return { columns, rows };
}

/** The records of a JSON preview: its array, or the one array an object wraps, or the value alone. */
export function recordsOf(content: string): unknown[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return null;
  }
  if (Array.isArray(parsed)) return parsed;
  if (parsed && typeof parsed === 'object') {
    const arrays = Object.values(parsed as Record<string, unknown>).filter(Array.isArray);
    if (arrays.length === 1) return arrays[0] as unknown[];
  }
  return [parsed];
}

export function cellText(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** Why a record is invalid (negative data): a line of the labels file, or one of a preview's labels. */
export interface InvalidLabel {
  record: number;
  pointer: string;
  keyword: string;
  schema_pointer: string;
  rule?: number | null;
  detail: string;
}

/** Labels by record index (0-based, output order). */
export function labelsByRecord(labels: readonly InvalidLabel[]): Map<number, InvalidLabel[]> {
  const out = new Map<number, InvalidLabel[]>();
  for (const l of labels) out.set(l.record, [...(out.get(l.record) ?? []), l]);
  return out;
}

/** A label in words: "breaks maximum at /age: 130 is greater than the maximum of 120". */
export function labelText(label: InvalidLabel): string {
  return `breaks ${label.keyword} at ${label.pointer || '/'}${label.rule != null ? ` (rule ${label.rule + 1})` : ''}: ${label.detail}`;
}
