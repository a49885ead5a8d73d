// A searchable project Select, searched on the server (a tenant may have thousands of projects).
import { Select, type SelectProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../../gql';

const ProjectPickerQuery = graphql(`
  query ProjectPicker($q: String) {
    projects(q: $q, limit: 30) { total items { project_id name } }
  }
`);

type Props = Omit<SelectProps, 'data' | 'onChange'> & { onChange: (value: string | null) => void };

export function ProjectPicker({ value, onChange, ...props }: Props) {
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search, 250);
  const [selectedLabel, setSelectedLabel] = useState<string | null>(null);
  // typing the chosen project's name back into the box is not a new search
  const query = q && q !== selectedLabel ? q : null;
  const [{ data, fetching }] = useQuery({ query: ProjectPickerQuery, variables: { q: query } });
  const options = (data?.projects.items ?? []).map((p) => ({ value: String(p.project_id), label: p.name }));
  return (
    <Select
      label="Project"
      required
      searchable
      placeholder="Pick a project"
      description={query && data && options.length === 0 && !fetching ? 'No project matches.' : undefined}
      filter={({ options: all }) => all}
      data={options}
      value={value}
      searchValue={search}
      onSearchChange={setSearch}
      onChange={(v, option) => {
        setSelectedLabel(option?.label ?? null);
        onChange(v);
      }}
      {...props}
    />
  );
}
