// Where the server's complaint about a new dataset belongs in the form: by the field it names
// (`extensions.field`, pydantic's `extensions.errors`), e.g. `record_count`, `params.seed`,
// `schema_id`; never by its sentence.
import type { CombinedError } from 'urql';
import { errorDetail, errorField, fieldErrors, fieldPath } from '../../api/errors';

export type DatasetFormField =
  | 'project' | 'name' | 'schema' | 'constraintSet' | 'recordCount' | 'formats' | 'seed' | 'locale' | 'recordsPerFile'
  | 'coverage' | 'sqlDialect' | 'xmlLayout' | 'invalidRate' | 'invalidKeywords';

const BY_KEY: Record<string, DatasetFormField> = {
  project_id: 'project',
  name: 'name',
  schema_id: 'schema',
  constraint_set_id: 'constraintSet',
  record_count: 'recordCount',
  types: 'formats',
  seed: 'seed',
  locale: 'locale',
  locales: 'locale',
  records_per_file: 'recordsPerFile',
  coverage: 'coverage',
  sql_dialect: 'sqlDialect',
  xml_layout: 'xmlLayout',
  invalid_rate: 'invalidRate',
  invalid_keywords: 'invalidKeywords',
  // the record root comes from the constraint set: a clash or an unsatisfiable root is shown there
  root: 'constraintSet',
};

function keyField(loc: string): DatasetFormField | undefined {
  const parts = fieldPath(loc).filter((p) => p !== 'params');
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
  // the detail sentence is about the error's own field; prefer it over pydantic's terser message
  const own = errorField(error);
  const field = own ? keyField(own) : undefined;
  if (field) fields[field] = detail;
  return { fields, general: Object.keys(fields).length ? null : detail };
}
