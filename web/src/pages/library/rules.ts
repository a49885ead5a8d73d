// Constraint rules as the editor holds them (text the user typed) and as the server takes them
// (app/generation/constraint_rules.py: path, category, pattern, min, max, min_length, max_length,
// enum, null_rate, unique), and where the server's 422 detail points.
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
}

export type RuleControl = 'field' | 'category' | 'min' | 'max' | 'pattern' | 'values' | 'nullRate' | 'unique';

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
  return { key: newRuleKey(), path: null, category: null, min: '', max: '', pattern: '', values: [], nullRate: '', unique: false };
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
  return out;
}

export interface RuleError {
  /** The rule's index in the list sent. */
  index: number;
  message: string;
  control: RuleControl | null;
}

/** Which control of the rule a conflict sentence is about. */
function controlOf(conflict: string): RuleControl | null {
  const checks: [RegExp, RuleControl][] = [
    [/no field has this path|more than one rule has this path|unknown key/i, 'field'],
    [/category/i, 'category'],
    [/null_rate/i, 'nullRate'],
    [/'unique'/i, 'unique'],
    [/enum/i, 'values'],
    [/pattern/i, 'pattern'],
    [/^'?min(_length)?'?\b|^min /i, 'min'],
    [/^'?max(_length)?'?\b|^max /i, 'max'],
  ];
  return checks.find(([re]) => re.test(conflict))?.[1] ?? null;
}

/** The rule a 422 detail names: "Rule for 'a.b': ..." (by path), "Rule 3 must ..." (by index), or a
 * field error at rules.N. */
export function locateRuleError(detail: string | null, fields: { field: string; message: string }[],
                                rules: RuleDraft[]): RuleError | null {
  if (!detail) return null;
  const byPath = /^Rule for '(.*?)': (.*)$/s.exec(detail);
  if (byPath) {
    const [, path, conflict = ''] = byPath;
    const index = rules.findIndex((r) => r.path === path);
    if (index >= 0) return { index, message: detail, control: controlOf(conflict) };
  }
  const byIndex = /^Rule (\d+) /.exec(detail);
  if (byIndex && Number(byIndex[1]) < rules.length) return { index: Number(byIndex[1]), message: detail, control: 'field' };
  const field = fields.map((f) => /(?:^|\.)rules\.(\d+)/.exec(f.field)).find(Boolean);
  if (field && Number(field[1]) < rules.length) return { index: Number(field[1]), message: detail, control: null };
  return null;
}
