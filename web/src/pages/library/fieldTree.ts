// The schema representation of `schema_repr` (app/generation/schema_repr.py) as typed data, and the
// views of it the library needs: Mantine Tree nodes and the paths a constraint rule can name.
import type { TreeNodeData } from '@mantine/core';

export interface ReprField {
  path: string;
  name: string;
  type: string;
  required: boolean;
  nullable: boolean;
  min?: number | string | null;
  max?: number | string | null;
  min_length?: number | null;
  max_length?: number | null;
  pattern?: string | null;
  enum?: unknown[] | null;
  format?: string | null;
  min_items?: number | null;
  max_items?: number | null;
  exclusive_min?: boolean;
  exclusive_max?: boolean;
  multiple_of?: number | null;
  ref?: string;
  choice_mode?: string | null;
  /** The value category the generator infers from the name and facets (what it draws without a rule). */
  inferred_category?: string | null;
  children: ReprField[];
}

export interface SchemaRepr {
  root: string;
  roots: string[];
  fields: ReprField[];
  definitions: Record<string, ReprField>;
  unsupported: { path: string; reason: string }[];
}

export const CONTAINER_TYPES = new Set(['object', 'array', 'choice', 'ref']);

/** The schema's own facets of a field as short phrases ("1-40 chars", "enum: a, b"). */
export function facets(field: ReprField): string[] {
  const out: string[] = [];
  const range = (lo: unknown, hi: unknown, unit = '') => {
    if (lo != null && hi != null) return `${lo}–${hi}${unit}`;
    if (lo != null) return `≥ ${lo}${unit}`;
    return `≤ ${hi}${unit}`;
  };
  if (field.min != null || field.max != null) out.push(range(field.min, field.max));
  if (field.min_length != null || field.max_length != null) out.push(range(field.min_length, field.max_length, ' chars'));
  if (field.min_items != null || field.max_items != null) out.push(range(field.min_items, field.max_items, ' items'));
  if (field.multiple_of != null) out.push(`multiple of ${field.multiple_of}`);
  if (field.format) out.push(`format ${field.format}`);
  if (field.pattern) out.push(`pattern ${field.pattern.length > 40 ? `${field.pattern.slice(0, 40)}…` : field.pattern}`);
  if (field.enum) {
    const shown = field.enum.slice(0, 6).map((v) => JSON.stringify(v)).join(', ');
    out.push(`enum ${shown}${field.enum.length > 6 ? ', …' : ''}`);
  }
  if (field.ref) out.push(`→ ${field.ref}`);
  if (field.choice_mode) out.push(field.choice_mode);
  return out;
}

/** Tree nodes keyed by a unique value (array items share their array's path). */
export function treeNodes(fields: ReprField[], parentKey = ''): (TreeNodeData & { field: ReprField })[] {
  return fields.map((field, index) => {
    const value = `${parentKey}/${index}:${field.name}`;
    return {
      value,
      label: field.name || field.path || '(record)',
      field,
      children: field.children.length ? treeNodes(field.children, value) : undefined,
    };
  });
}

export interface RulePath {
  path: string;
  /** The type a rule on this path constrains (an array's item type for arrays). */
  type: string;
  required: boolean;
  nullable: boolean;
  /** The schema's enum values, offered as the rule's Values. */
  enum: unknown[] | null;
  inferredCategory: string | null;
}

/** Every path a value rule can name: scalar fields, and arrays of scalars (through their items). */
export function rulePaths(fields: ReprField[]): RulePath[] {
  const found = new Map<string, RulePath>();
  const visit = (field: ReprField, owner: ReprField) => {
    if (!CONTAINER_TYPES.has(field.type)) {
      if (!found.has(field.path)) {
        found.set(field.path, {
          path: field.path, type: field.type, required: owner.required, nullable: owner.nullable || field.nullable,
          enum: field.enum ?? null, inferredCategory: field.inferred_category ?? null,
        });
      }
      return;
    }
    // an array's item node shares the array's path: keep the array's required/nullable
    field.children.forEach((child) => visit(child, child.path === field.path ? owner : child));
  };
  fields.forEach((f) => visit(f, f));
  return [...found.values()];
}
