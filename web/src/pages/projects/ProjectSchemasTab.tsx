// Schemas linked to the project (links to the library) and Link schema for editors.
import { Anchor, Badge, Button, Group, Paper, Stack, Table, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconLink } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useSession } from '../../auth/SessionProvider';
import { formatWhen } from '../../components/format';
import type { ProjectQuery } from '../../gql/graphql';
import { LinkSchemaModal } from './LinkSchemaModal';

type LinkedSchema = ProjectQuery['project']['schemas'][number];

interface Props {
  projectId: number;
  myRole: string;
  schemas: LinkedSchema[];
  onChanged: () => void;
}

export function ProjectSchemasTab({ projectId, myRole, schemas, onChanged }: Props) {
  const { can } = useSession();
  const [linkOpened, linkModal] = useDisclosure(false);
  const mayLink = can('project.link_schema', myRole);
  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Text size="sm" c="dimmed">Datasets of this project are generated from these schemas.</Text>
        {mayLink && <Button leftSection={<IconLink size={16} aria-hidden />} onClick={linkModal.open}>Link schema</Button>}
      </Group>
      <Paper withBorder radius="md">
        {schemas.length === 0 ? (
          <Stack p="lg" gap="xs" align="flex-start">
            <Text>No schema is linked to this project yet.</Text>
            {mayLink && (
              <Text size="sm" c="dimmed">
                Link one from the library with Link schema, or{' '}
                <Anchor component={Link} to="/library?upload=1" inherit>upload a schema</Anchor>.
              </Text>
            )}
          </Stack>
        ) : (
          <Table.ScrollContainer minWidth={600} type="native">
            <Table verticalSpacing="sm" aria-label="Linked schemas">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">Name</Table.Th>
                  <Table.Th scope="col">Type</Table.Th>
                  <Table.Th scope="col">Record root</Table.Th>
                  <Table.Th scope="col" ta="right">Fields</Table.Th>
                  <Table.Th scope="col">Uploaded</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {schemas.map((s) => (
                  <Table.Tr key={s.schema_id}>
                    <Table.Td><Anchor component={Link} to={`/library/schemas/${s.schema_id}`} fw={500}>{s.name}</Anchor></Table.Td>
                    <Table.Td>
                      <Badge variant="light" tt="none" style={{ minWidth: 'max-content' }}>{s.type === 'xsd' ? 'XSD' : 'JSON Schema'} {s.version}</Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" ff="monospace">{s.default_root}</Text>
                      {s.roots.length > 1 && <Text size="xs" c="dimmed">{s.roots.length} roots</Text>}
                    </Table.Td>
                    <Table.Td ta="right"><Text size="sm">{s.field_count.toLocaleString()}</Text></Table.Td>
                    <Table.Td><Text size="sm">{formatWhen(s.created_at)}</Text></Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Paper>
      <LinkSchemaModal opened={linkOpened} onClose={linkModal.close} projectId={projectId}
        linkedIds={schemas.map((s) => s.schema_id)} onLinked={() => { linkModal.close(); onChanged(); }} />
    </Stack>
  );
}
