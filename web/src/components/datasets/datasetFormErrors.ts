// Where the server's complaint about a new dataset belongs in the form. Pydantic failures name
// their field in extensions.errors; the service's own checks name it in the sentence
// ("record_count must be…", "params.seed must be…", "Constraint set 3 belongs to…").
import type { CombinedError } from 'urql';
import { errorDetail, fieldErrors } from '../../api/errors';

export type DatasetFormField =
  | 'project' | 'name' | 'schema' | 'constraintSet' | 'recordCount' | 'formats' | 'seed' | 'locale' | 'recordsPerFile';

const BY_KEY: Record<string, DatasetFormField> = {
  project_id: 'project',
  name: 'name',
  schema_id: 'schema',
  constraint_set_id: 'constraintSet',
  record_count: 'recordCount',
  types: 'formats',
  seed: 'seed',
  locale: 'locale',
  records_per_file: 'recordsPerFile',
};

// Sentences of app/core/services/datasets.py and app/generation (engine.parse_params, vocab).
const BY_SENTENCE: Array<[RegExp, DatasetFormField]> = [
  [/^record_count\b/, 'recordCount'],
  [/^(types\b|Unknown output format)/, 'formats'],
  [/^params\.seed\b/, 'seed'],
  [/^params\.records_per_file\b/, 'recordsPerFile'],
  [/^locale\b/, 'locale'],
  [/^Constraint set\b|^params\.root\b/, 'constraintSet'],
  [/^Schema \d+/, 'schema'],
];

function keyField(loc: string): DatasetFormField | undefined {
  const parts = loc.split('.').filter((p) => p !== 'input' && p !== 'params' && p !== 'body');
  return parts.length ? BY_KEY[parts[0]!] : undefined;
}

export interface PlacedErrors {
  fields: Partial<Record<DatasetFormField, string>>;
  /** What no field can show (permissions, network, conflicts). */
  general: string | null;
}

export function placeDatasetErrors(error: CombinedError | undefined): PlacedErrors {
  const detail = errorDetail(error);
  if (!detail) return { fields: {}, general: null };
  const fields: PlacedErrors['fields'] = {};
  for (const e of fieldErrors(error)) {
    const field = keyField(e.field);
    if (field && !fields[field]) fields[field] = e.message.replace(/^Value error, /, '');
  }
  if (Object.keys(fields).length === 0) {
    const match = BY_SENTENCE.find(([pattern]) => pattern.test(detail));
    if (match) fields[match[1]] = detail;
  } else {
    // the detail sentence names the first field; prefer it over pydantic's terser message
    const first = fieldErrors(error)[0];
    const field = first && keyField(first.field);
    if (field) fields[field] = detail;
  }
  return { fields, general: Object.keys(fields).length ? null : detail };
}
