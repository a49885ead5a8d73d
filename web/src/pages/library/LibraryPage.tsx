// Library: schemas (upload, list) and constraint sets. The tab and the upload area live in the URL
// (?tab=constraints, ?upload=1) so links such as the dashboard's "upload a schema" open them.
import { Button, Stack, Tabs } from '@mantine/core';
import { IconUpload } from '@tabler/icons-react';
import { useSearchParams } from 'react-router';
import { useSession } from '../../auth/SessionProvider';
import { PageTitle } from '../../components/PageTitle';
import { ConstraintSetsTab } from './ConstraintSetsTab';
import { SchemasTab } from './SchemasTab';
import { SchemaUpload } from './SchemaUpload';

type Tab = 'schemas' | 'constraints';

export default function LibraryPage() {
  const { can } = useSession();
  const [params, setParams] = useSearchParams();
  const tab: Tab = params.get('tab') === 'constraints' ? 'constraints' : 'schemas';
  const canUpload = can('schema.upload');
  const uploadOpen = canUpload && params.get('upload') === '1';

  const update = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    Object.entries(changes).forEach(([key, value]) => (value == null ? next.delete(key) : next.set(key, value)));
    setParams(next);
  };
  const openUpload = () => update({ tab: null, upload: '1' });

  return (
    <Stack gap="md">
      <PageTitle
        actions={canUpload && !uploadOpen ? (
          <Button leftSection={<IconUpload size={16} aria-hidden />} onClick={openUpload}>Upload schema</Button>
        ) : undefined}
      >
        Library
      </PageTitle>
      <Tabs value={tab} onChange={(value) => update({ tab: value === 'constraints' ? 'constraints' : null })} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="schemas">Schemas</Tabs.Tab>
          <Tabs.Tab value="constraints">Constraint sets</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="schemas" pt="md">
          <Stack gap="md">
            {uploadOpen && <SchemaUpload focus={uploadOpen} onClose={() => update({ upload: null })} />}
            <SchemasTab canUpload={canUpload} onUpload={openUpload} />
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="constraints" pt="md">
          <ConstraintSetsTab canCreate={can('constraint.create')} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
