// Constraint rules as the editor holds them (text the user typed) and as the server takes them
// (app/generation/rules.py: path, category, pattern, min, max, min_length, max_length, enum,
// null_rate, unique, distribution with mean/sd, edge_rate, after), and where the server's 422 points.
import type { RulePath } from './fieldTree';

export interface RuleDraft {
  key: string;
  path: string | null;
  category: string | null;
  min: string;
  max: string;
  pattern: string;
  values: string[];
  nullRate: number | string;
  unique: boolean;
  distribution: string | null;
  mean: string;
  sd: string;
  edgeRate: number | string;
  after: string | null;
}

export type RuleControl = 'field' | 'category' | 'min' | 'max' | 'pattern' | 'values' | 'nullRate' | 'unique'
  | 'distribution' | 'edgeRate' | 'after';

export const DISTRIBUTIONS = [
  { value: 'uniform', label: 'Uniform' },
  { value: 'normal', label: 'Normal (mean, SD)' },
  { value: 'lognormal', label: 'Log-normal' },
  { value: 'skewed', label: 'Skewed' },
];
/** Distributions that take a mean and a standard deviation (normal needs them). */
export const WITH_MEAN = new Set(['normal', 'lognormal']);

const NUMERIC = new Set(['integer', 'number']);
export const TEMPORAL = new Set(['date', 'datetime', 'time']);
/** On text fields "Minimum"/"Maximum" are lengths (min_length/max_length). */
export const isLengthType = (type: string | undefined) => type === 'string';

let counter = 0;
export function newRuleKey(): string {
  counter += 1;
  return `rule-${counter}`;
}

export function emptyRule(): RuleDraft {
  return {
    key: newRuleKey(), path: null, category: null, min: '', max: '', pattern: '', values: [], nullRate: '', unique: false,
    distribution: null, mean: '', sd: '', edgeRate: '', after: null,
  };
}

const text = (value: unknown) => (value == null ? '' : typeof value === 'string' ? value : JSON.stringify(value));

export function draftFromRule(raw: Record<string, unknown>): RuleDraft {
  const lengths = raw.min_length != null || raw.max_length != null;
  return {
    key: newRuleKey(),
    path: typeof raw.path === 'string' ? raw.path : null,
    category: typeof raw.category === 'string' ? raw.category : null,
    min: text(lengths ? raw.min_length : raw.min),
    max: text(lengths ? raw.max_length : raw.max),
    pattern: typeof raw.pattern === 'string' ? raw.pattern : '',
    values: Array.isArray(raw.enum) ? raw.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))) : [],
    nullRate: typeof raw.null_rate === 'number' ? raw.null_rate : '',
    unique: raw.unique === true,
    distribution: typeof raw.distribution === 'string' ? raw.distribution : null,
    mean: text(raw.mean),
    sd: text(raw.sd),
    edgeRate: typeof raw.edge_rate === 'number' ? raw.edge_rate : '',
    after: typeof raw.after === 'string' ? raw.after : null,
  };
}

/** A typed bound: numbers for numeric fields when the text is a number, else the text as typed
 * (the server then says what it expected, at this rule). */
function bound(value: string, type: string | undefined): unknown {
  const trimmed = value.trim();
  if ((NUMERIC.has(type ?? '') || isLengthType(type)) && trimmed !== '' && Number.isFinite(Number(trimmed))) {
    return Number(trimmed);
  }
  return trimmed;
}

function enumValue(value: string, type: string | undefined): unknown {
  if (NUMERIC.has(type ?? '') && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

export function ruleToRaw(draft: RuleDraft, field: RulePath | undefined): Record<string, unknown> {
  const type = field?.type;
  const out: Record<string, unknown> = { path: draft.path ?? '' };
  if (draft.category) out.category = draft.category;
  const [lo, hi] = isLengthType(type) ? ['min_length', 'max_length'] : ['min', 'max'];
  if (draft.min.trim() !== '') out[lo] = bound(draft.min, type);
  if (draft.max.trim() !== '') out[hi] = bound(draft.max, type);
  if (draft.pattern !== '') out.pattern = draft.pattern;
  if (draft.values.length) out.enum = draft.values.map((v) => enumValue(v, type));
  if (typeof draft.nullRate === 'number') out.null_rate = draft.nullRate;
  if (draft.unique) out.unique = true;
  if (draft.distribution) out.distribution = draft.distribution;
  const number = (v: string) => (v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v.trim());
  if (draft.mean.trim() !== '') out.mean = number(draft.mean);
  if (draft.sd.trim() !== '') out.sd = number(draft.sd);
  if (typeof draft.edgeRate === 'number') out.edge_rate = draft.edgeRate;
  if (draft.after) out.after = draft.after;
  return out;
}

export interface RuleError {
  /** The rule's index in the list sent. */
  index: number;
  message: string;
  control: RuleControl | null;
}

/** The control that shows a rule key the server names (`rules.2.min_length` -> 'min'). */
const CONTROL_BY_KEY: Record<string, RuleControl> = {
  path: 'field',
  category: 'category',
  pattern: 'pattern',
  min: 'min',
  min_length: 'min',
  max: 'max',
  max_length: 'max',
  enum: 'values',
  null_rate: 'nullRate',
  unique: 'unique',
  distribution: 'distribution',
  mean: 'distribution',
  sd: 'distribution',
  edge_rate: 'edgeRate',
  after: 'after',
};

/** The rule an error names by its field, `rules.<index>` or `rules.<index>.<key>` (the server's
 * `extensions.field`, or a field-level error of the input). */
export function locateRuleError(detail: string | null, fields: { field: string; message: string }[],
                                rules: RuleDraft[]): RuleError | null {
  if (!detail) return null;
  for (const { field } of fields) {
    const found = /(?:^|\.)rules\.(\d+)(?:\.([a-z_]+))?/.exec(field);
    if (!found || Number(found[1]) >= rules.length) continue;
    const key = found[2];
    return { index: Number(found[1]), message: detail, control: key ? (CONTROL_BY_KEY[key] ?? null) : null };
  }
  return null;
}
