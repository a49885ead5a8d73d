// A searchable "Project" Select over the caller's projects, searched on the server (tenants may
// have thousands of projects).
import { Select, type SelectProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../../gql';

const ProjectOptionsQuery = graphql(`
  query ProjectOptions($q: String) {
    projects(q: $q, limit: 50) { items { project_id name } total }
  }
`);

interface Props extends Omit<SelectProps, 'data' | 'value' | 'onChange' | 'searchValue' | 'onSearchChange'> {
  value: number | null;
  onChange: (projectId: number | null) => void;
  /** Projects not offered (e.g. the ones a schema is already linked to). */
  exclude?: number[];
}

export function ProjectSelect({ value, onChange, exclude = [], ...props }: Props) {
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search, 250);
  const [chosenLabel, setChosenLabel] = useState<string | null>(null);
  // while the search text is the chosen project's name, list everything
  const query = q && q !== chosenLabel ? q : null;
  const [{ data, fetching }] = useQuery({ query: ProjectOptionsQuery, variables: { q: query } });
  const options = useMemo(() => {
    const items = (data?.projects.items ?? []).filter((p) => !exclude.includes(p.project_id));
    const list = items.map((p) => ({ value: String(p.project_id), label: p.name }));
    if (value != null && chosenLabel && !list.some((o) => o.value === String(value))) {
      list.unshift({ value: String(value), label: chosenLabel });
    }
    return list;
  }, [data, exclude, value, chosenLabel]);

  return (
    <Select
      label="Project"
      placeholder="Search projects"
      searchable
      clearable
      data={options}
      value={value == null ? null : String(value)}
      onChange={(next, option) => {
        setChosenLabel(option?.label ?? null);
        onChange(next ? Number(next) : null);
      }}
      searchValue={search}
      onSearchChange={setSearch}
      nothingFoundMessage={fetching ? 'Searching…' : 'No project found'}
      filter={({ options: all }) => all}
      {...props}
    />
  );
}
