// The commands that make a dataset again outside the browser: a curl request to the REST API and a
// `tdg generate` run per format (offline, from the schema file and the rules the dataset recorded).
// The seed is written from its decimal string: a 63-bit seed does not survive a JavaScript number.

export interface Reproducible {
  name: string;
  project_id: number;
  schema_id: number;
  constraint_set_id?: number | null;
  record_count: number;
  types: string[];
  params: unknown;
  seed?: string | null;
  rules: unknown;
}

const SEED_MARK = '"__tdg_seed__"';

function paramsOf(dataset: Reproducible): Record<string, unknown> {
  const params = dataset.params && typeof dataset.params === 'object' ? { ...(dataset.params as Record<string, unknown>) } : {};
  if (dataset.seed != null) params.seed = '__tdg_seed__';
  return params;
}

/** JSON text with the seed's exact digits where the placeholder stands. */
function withSeed(json: string, seed: string | null | undefined): string {
  return seed != null && /^\d+$/.test(seed) ? json.replace(SEED_MARK, seed) : json;
}

/** A word safe in a POSIX shell, single-quoted when it needs to be. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:=@,+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** POST /api/v1/datasets/create with the dataset's inputs (its constraint set as the set is now). */
export function curlCommand(dataset: Reproducible, origin: string): string {
  const body: Record<string, unknown> = {
    name: dataset.name,
    project_id: dataset.project_id,
    schema_id: dataset.schema_id,
    record_count: dataset.record_count,
    types: dataset.types,
  };
  if (dataset.constraint_set_id != null) body.constraint_set_id = dataset.constraint_set_id;
  body.params = paramsOf(dataset);
  const json = withSeed(JSON.stringify(body), dataset.seed);
  return [
    `curl -X POST ${shellWord(`${origin}/api/v1/datasets/create`)} \\`,
    '  -H "Authorization: Bearer $TDG_TOKEN" \\',
    "  -H 'Content-Type: application/json' \\",
    `  -d ${shellWord(json)}`,
  ].join('\n');
}

function fileStem(name: string): string {
  const stem = name.trim().replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  return stem || 'dataset';
}

/** `tdg generate` per format; params without a command-line option are named in a comment. */
export function tdgCommand(dataset: Reproducible, schemaFile: string): string {
  const params = dataset.params && typeof dataset.params === 'object' ? (dataset.params as Record<string, unknown>) : {};
  const lines: string[] = [];
  const rules = Array.isArray(dataset.rules) ? dataset.rules : [];
  if (rules.length > 0) {
    lines.push("cat > constraints.json <<'EOF'", JSON.stringify(rules, null, 2), 'EOF');
  }
  const options: string[] = [];
  if (dataset.seed != null) options.push('--seed', dataset.seed);
  if (typeof params.root === 'string') options.push('--root', shellWord(params.root));
  if (Array.isArray(params.locales) && params.locales.length > 0) options.push('--locale', shellWord(params.locales.join(',')));
  else if (typeof params.locale === 'string') options.push('--locale', shellWord(params.locale));
  if (typeof params.records_per_file === 'number') options.push('--records-per-file', String(params.records_per_file));
  if (typeof params.sql_dialect === 'string') options.push('--sql-dialect', shellWord(params.sql_dialect));
  if (typeof params.table_name === 'string') options.push('--table-name', shellWord(params.table_name));
  if (typeof params.coverage === 'string') options.push('--coverage', shellWord(params.coverage));
  if (typeof params.invalid_rate === 'number' && params.invalid_rate > 0) {
    options.push('--invalid-rate', String(params.invalid_rate));
    if (Array.isArray(params.invalid_keywords) && params.invalid_keywords.length > 0) {
      options.push('--invalid-keywords', shellWord(params.invalid_keywords.join(',')));
    }
  }
  if (rules.length > 0) options.push('--constraints', 'constraints.json');
  const unexpressed = ['null_rate', 'csv_delimiter', 'csv_formula_guard'].filter((k) => params[k] != null);
  if (unexpressed.length > 0) lines.push(`# tdg generate has no option for params ${unexpressed.join(', ')}`);
  const stem = fileStem(dataset.name);
  for (const format of dataset.types) {
    const out = `${stem}.${format}`; // every output format's file extension is its name
    lines.push(['tdg generate', shellWord(schemaFile), '-n', String(dataset.record_count), '-f', format,
      ...options, '-o', shellWord(out)].join(' '));
  }
  return lines.join('\n');
}
