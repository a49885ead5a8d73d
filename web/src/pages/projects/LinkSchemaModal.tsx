// Link one of the tenant's schemas to the project (searched on the server).
import { Alert, Button, Group, Modal, Select, Stack } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { useEffect, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorDetail, errorField } from '../../api/errors';
import { graphql } from '../../gql';

const LinkableSchemasQuery = graphql(`
  query LinkableSchemas($q: String) {
    schemas(q: $q, limit: 30) { total items { schema_id name type version } }
  }
`);

const LinkSchemaMutation = graphql(`
  mutation LinkSchema($project_id: Int!, $input: SchemaLinkInput!) {
    add_project_schema(project_id: $project_id, input: $input) { project_id schemas { schema_id } }
  }
`);

interface Props {
  opened: boolean;
  onClose: () => void;
  projectId: number;
  linkedIds: number[];
  onLinked: () => void;
}

export function LinkSchemaModal({ opened, onClose, projectId, linkedIds, onLinked }: Props) {
  const [search, setSearch] = useState('');
  const [picked, setPicked] = useState<string | null>(null);
  const [value, setValue] = useState<string | null>(null);
  const [q] = useDebouncedValue(search.trim(), 250);
  const [{ data, fetching }] = useQuery({
    query: LinkableSchemasQuery, variables: { q: q && q !== picked ? q : null }, pause: !opened,
  });
  const [state, link] = useMutation(LinkSchemaMutation);
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [general, setGeneral] = useState<string | null>(null);
  useEffect(() => {
    if (opened) {
      setSearch('');
      setPicked(null);
      setValue(null);
      setFieldError(null);
      setGeneral(null);
    }
  }, [opened]);

  const options = (data?.schemas.items ?? [])
    .filter((s) => !linkedIds.includes(s.schema_id))
    .map((s) => ({ value: String(s.schema_id), label: `${s.name} (${s.type === 'xsd' ? 'XSD' : 'JSON Schema'} ${s.version})` }));

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!value) {
      setFieldError('Pick a schema.');
      return;
    }
    const result = await link({ project_id: projectId, input: { schema_id: Number(value) } });
    if (result.data) {
      notifications.show({ color: 'green', message: 'Schema linked.' });
      onLinked();
      return;
    }
    const detail = errorDetail(result.error);
    if (detail && errorField(result.error) === 'schema_id') setFieldError(detail);
    else setGeneral(detail);
  };

  return (
    <Modal opened={opened} onClose={onClose} title="Link schema" closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          {general && <Alert color="red" role="alert">{general}</Alert>}
          <Select label="Schema" required searchable data-autofocus placeholder="Search the library"
            data={options} filter={({ options: all }) => all} searchValue={search} onSearchChange={setSearch}
            description={data && options.length === 0 && !fetching
              ? (q && q !== picked ? 'No unlinked schema matches.' : 'Every schema of the library is linked already.')
              : undefined}
            value={value} error={fieldError}
            onChange={(v, option) => { setPicked(option?.label ?? null); setValue(v); setFieldError(null); }} />
          <Group justify="flex-end" gap="sm" mt="xs">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={state.fetching}>Link schema</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
