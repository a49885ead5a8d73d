// A searchable "Schema" Select over the tenant's schemas, searched on the server.
import { Select, type SelectProps } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../../gql';

const SchemaOptionsQuery = graphql(`
  query SchemaOptions($q: String) { schemas(q: $q, limit: 50) { items { schema_id name } total } }
`);

interface Props extends Omit<SelectProps, 'data' | 'value' | 'onChange' | 'searchValue' | 'onSearchChange'> {
  value: number | null;
  /** The chosen schema's name when it is known (e.g. from ?schema_id=). */
  valueLabel?: string | null;
  onChange: (schemaId: number | null) => void;
}

export function SchemaSelect({ value, valueLabel, onChange, ...props }: Props) {
  const [search, setSearch] = useState('');
  const [q] = useDebouncedValue(search, 250);
  const [{ data, fetching }] = useQuery({ query: SchemaOptionsQuery, variables: { q: q && q !== valueLabel ? q : null } });
  const options = useMemo(() => {
    const list = (data?.schemas.items ?? []).map((s) => ({ value: String(s.schema_id), label: s.name }));
    if (value != null && valueLabel && !list.some((o) => o.value === String(value))) {
      list.unshift({ value: String(value), label: valueLabel });
    }
    return list;
  }, [data, value, valueLabel]);
  return (
    <Select label="Schema" placeholder="Search schemas" searchable data={options} value={value == null ? null : String(value)}
      onChange={(next) => onChange(next ? Number(next) : null)} searchValue={search} onSearchChange={setSearch}
      nothingFoundMessage={fetching ? 'Searching…' : 'No schema found'} filter={({ options: all }) => all}
      allowDeselect={false} {...props} />
  );
}
