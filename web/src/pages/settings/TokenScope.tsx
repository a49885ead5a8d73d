// The scope of an API token: the projects and the actions it is limited to (the server enforces
// it, and never lets a token do more than its owner), chosen when it is made and shown in the list.
import { Checkbox, MultiSelect, Stack, Switch } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import type { TokenAction } from '../../gql/graphql';

const ScopeProjectsQuery = graphql(`
  query TokenScopeProjects($q: String) {
    projects(q: $q, limit: 100) { items { project_id name } }
  }
`);

/** The closed set of TokenAction values, in the server's order, with what each allows. */
export const TOKEN_ACTIONS: { value: TokenAction; label: string; description: string }[] = [
  { value: 'read', label: 'Read', description: 'View projects, datasets and the schema library (every query).' },
  { value: 'upload', label: 'Upload', description: 'Upload and change schemas and constraint sets, link schemas to projects.' },
  { value: 'generate', label: 'Generate', description: 'Create, start, cancel and delete datasets.' },
  { value: 'download', label: 'Download', description: 'Download files, make download links, export to an object store.' },
];

export interface ScopeValues {
  limited: boolean;
  projects: string[];
  actions: string[];
}

export const NO_SCOPE: ScopeValues = { limited: false, projects: [], actions: ['read', 'generate', 'download'] };

/** The input fields of the scope, or nulls for an unscoped token. */
export function scopeInput(values: ScopeValues): { project_ids: number[] | null; actions: TokenAction[] | null } {
  if (!values.limited) return { project_ids: null, actions: null };
  return {
    project_ids: values.projects.length ? values.projects.map(Number) : null,
    actions: TOKEN_ACTIONS.filter((a) => values.actions.includes(a.value)).map((a) => a.value),
  };
}

/** Project names by id, for the list (a project no longer visible reads as its number). */
export function useProjectNames(): Map<number, string> {
  const [{ data }] = useQuery({ query: ScopeProjectsQuery, variables: { q: null } });
  return useMemo(() => new Map((data?.projects.items ?? []).map((p) => [p.project_id, p.name])), [data]);
}

/** A token's scope in words: "Full access", or its actions and projects. */
export function scopeText(
  token: { project_ids?: number[] | null; actions?: TokenAction[] | null },
  names: Map<number, string>,
): string {
  if (!token.actions) return 'Full access (your role)';
  const actions = TOKEN_ACTIONS.filter((a) => token.actions!.includes(a.value)).map((a) => a.label).join(', ');
  const projects = token.project_ids
    ? token.project_ids.map((id) => names.get(id) ?? `Project ${id}`).join(', ')
    : 'all your projects';
  return `${actions} · ${projects}`;
}

interface FieldProps {
  values: ScopeValues;
  errors: { projects?: string; actions?: string };
  onChange: (next: ScopeValues) => void;
}

export function TokenScopeFields({ values, errors, onChange }: FieldProps) {
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search, 250);
  const [{ data }] = useQuery({ query: ScopeProjectsQuery, variables: { q: q || null }, pause: !values.limited });
  // the chosen projects keep their names while another search shows other ones
  const [known, setKnown] = useState<Map<string, string>>(new Map());
  const options = useMemo(() => {
    const found = new Map(known);
    for (const p of data?.projects.items ?? []) found.set(String(p.project_id), p.name);
    return [...found].map(([value, label]) => ({ value, label }));
  }, [data, known]);

  return (
    <Stack gap="sm">
      <Switch label="Limit this token to some projects and actions"
        description="Without a limit the token can do everything you can."
        checked={values.limited} onChange={(e) => onChange({ ...values, limited: e.currentTarget.checked })} />
      {values.limited && (
        <>
          <MultiSelect label="Projects" placeholder={values.projects.length ? undefined : 'All your projects'}
            description="The only projects the token can reach; leave empty for all of yours."
            searchable data={options} value={values.projects} searchValue={search} onSearchChange={setSearch}
            filter={({ options: all }) => all} error={errors.projects}
            onChange={(projects) => {
              setKnown(new Map(options.filter((o) => projects.includes(o.value)).map((o) => [o.value, o.label])));
              onChange({ ...values, projects });
            }} />
          <Checkbox.Group label="Actions" description="What the token may do there." required
            value={values.actions} error={errors.actions} onChange={(actions) => onChange({ ...values, actions })}>
            <Stack gap={6} mt={4}>
              {TOKEN_ACTIONS.map((a) => (
                <Checkbox key={a.value} value={a.value} label={a.label} description={a.description} />
              ))}
            </Stack>
          </Checkbox.Group>
        </>
      )}
    </Stack>
  );
}
