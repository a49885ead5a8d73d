// Dashboard: counts, datasets in progress (live), recent datasets with downloads, unread
// notifications, and the quick actions.
import { Alert, Button, Stack } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { IconPlus, IconUpload } from '@tabler/icons-react';
import { useMemo } from 'react';
import { useNavigate } from 'react-router';
import { useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { useSession } from '../../auth/SessionProvider';
import { PageTitle } from '../../components/PageTitle';
import { DatasetFormModal } from '../../components/datasets/DatasetFormModal';
import { useLiveDatasets } from '../../components/datasets/useLiveDatasets';
import { graphql } from '../../gql';
import { DatasetSection } from './DatasetSection';
import { StatCards } from './StatCards';
import { UnreadNotifications } from './UnreadNotifications';

const DashboardQuery = graphql(`
  query Dashboard {
    projects(limit: 100) { total items { project_id name } }
    schemas(limit: 1) { total }
    unread_notification_count { count }
    notifications(unread_only: true, limit: 5) { total items { notification_id title message created_at data } }
  }
`);

const ACTIVE_LIMIT = 10;
const RECENT_LIMIT = 6;

export default function DashboardPage() {
  const navigate = useNavigate();
  const { can } = useSession();
  const [formOpened, form] = useDisclosure(false);
  const [{ data, error }] = useQuery({ query: DashboardQuery, context: useMemo(() => ({ additionalTypenames: ['Notification', 'Project'] }), []) });
  const running = useLiveDatasets({ status: 'running', limit: ACTIVE_LIMIT });
  const queued = useLiveDatasets({ status: 'queued', limit: ACTIVE_LIMIT });
  const recent = useLiveDatasets({ limit: RECENT_LIMIT });
  const projectNames = useMemo(
    () => new Map((data?.projects.items ?? []).map((p) => [p.project_id, p.name])),
    [data],
  );
  const refreshAll = () => {
    running.refresh();
    queued.refresh();
    recent.refresh();
  };

  const newDataset = () => {
    if (data && data.projects.total === 0) {
      notifications.show({ message: 'Datasets belong to a project: create or join one first.' });
      navigate('/projects');
    }
    else form.open();
  };

  const activeLoading = running.loading || queued.loading;
  const active = [...running.items, ...queued.items];
  return (
    <>
      <PageTitle
        actions={
          <>
            {can('schema.upload') && (
              <Button variant="default" leftSection={<IconUpload size={16} aria-hidden />} onClick={() => navigate('/library?upload=1')}>
                Upload a schema
              </Button>
            )}
            {can('dataset.create') && (
              <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={newDataset}>New dataset</Button>
            )}
          </>
        }
      >
        Dashboard
      </PageTitle>
      <Stack gap="md">
        {error && <Alert color="red" role="alert" title="Could not load the dashboard">{errorDetail(error)}</Alert>}
        <StatCards
          stats={[
            { label: 'Projects', value: data ? data.projects.total : null, to: '/projects' },
            { label: 'Schemas', value: data ? data.schemas.total : null, to: '/library' },
            {
              label: 'Datasets in progress', value: activeLoading ? null : running.total + queued.total, to: '/projects',
              detail: activeLoading ? undefined : `${running.total.toLocaleString()} running · ${queued.total.toLocaleString()} queued`,
            },
            { label: 'Unread notifications', value: data ? data.unread_notification_count.count : null, to: '/notifications' },
          ]}
        />
        <DatasetSection
          title="In progress"
          loading={activeLoading}
          error={running.error ?? queued.error}
          items={active}
          projectNames={projectNames}
          live={running.mode === 'live'}
          more={running.total + queued.total > active.length ? running.total + queued.total - active.length : 0}
          empty="Nothing is being generated right now. Datasets you start show their progress here."
          onChanged={refreshAll}
        />
        <DatasetSection
          title="Recent datasets"
          loading={recent.loading}
          error={recent.error}
          items={recent.items}
          projectNames={projectNames}
          empty="No dataset yet. Create one with New dataset, in a project with a linked schema."
          onChanged={refreshAll}
        />
        <UnreadNotifications
          items={data?.notifications.items ?? []}
          count={data?.unread_notification_count.count ?? 0}
          loading={!data && !error}
        />
      </Stack>
      <DatasetFormModal
        opened={formOpened}
        onClose={form.close}
        projectId={null}
        onCreated={(d) => {
          form.close();
          notifications.show({ color: 'green', message: `Dataset "${d.name}" created.` });
          refreshAll();
        }}
      />
    </>
  );
}
