// The project's datasets with live progress, paginated on the server, and the New dataset form.
import { Alert, Anchor, Button, Group, Paper, Skeleton, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { errorDetail } from '../../api/errors';
import { useSession } from '../../auth/SessionProvider';
import { DatasetFormModal } from '../../components/datasets/DatasetFormModal';
import { LiveBadge } from '../../components/datasets/LiveBadge';
import { DatasetsTable } from '../../components/datasets/DatasetsTable';
import { useLiveDatasets } from '../../components/datasets/useLiveDatasets';
import { Pager } from '../../components/Pager';

const PAGE_SIZE = 20;

interface Props {
  projectId: number;
  myRole: string;
  hasSchemas: boolean;
  onShowSchemas: () => void;
}

export function ProjectDatasetsTab({ projectId, myRole, hasSchemas, onShowSchemas }: Props) {
  const { can } = useSession();
  const [page, setPage] = useState(1);
  const [formOpened, form] = useDisclosure(false);
  const live = useLiveDatasets({ projectId, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
  const mayCreate = can('dataset.create', myRole);

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap" gap="sm">
        <LiveBadge mode={live.mode} />
        {mayCreate && (
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={form.open}>New dataset</Button>
        )}
      </Group>
      {live.error && <Alert color="red" role="alert" title="Could not load datasets">{errorDetail(live.error)}</Alert>}
      <Paper withBorder radius="md">
        {live.loading ? (
          <Stack p="md" gap="xs">{[0, 1, 2].map((i) => <Skeleton key={i} h={40} />)}</Stack>
        ) : live.items.length === 0 ? (
          <Stack p="lg" gap="xs" align="flex-start">
            <Text>No dataset in this project yet.</Text>
            {mayCreate && hasSchemas && <Text size="sm" c="dimmed">Create one with New dataset.</Text>}
            {mayCreate && !hasSchemas && (
              <Text size="sm" c="dimmed">
                First link a schema on the <Anchor component="button" type="button" onClick={onShowSchemas} inherit>Schemas</Anchor> tab.
              </Text>
            )}
          </Stack>
        ) : (
          <DatasetsTable items={live.items} label="Datasets" manageable onChanged={live.refresh} />
        )}
      </Paper>
      <Pager page={page} pageSize={PAGE_SIZE} total={live.total} noun="datasets" onChange={setPage} />
      <DatasetFormModal
        opened={formOpened}
        onClose={form.close}
        projectId={projectId}
        onCreated={(d) => {
          form.close();
          setPage(1);
          notifications.show({ color: 'green', message: `Dataset "${d.name}" created.` });
          live.refresh();
        }}
      />
    </Stack>
  );
}
