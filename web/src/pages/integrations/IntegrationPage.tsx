// One integration: its configuration and state, Admin actions (test, edit, rotate, delete) and,
// for webhooks, the delivery log.
import { Alert, Anchor, Button, Card, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { IconArrowLeft, IconKey, IconPencil, IconPlugConnected, IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useMutation, useQuery } from 'urql';
import { errorDetail, errorStatus } from '../../api/errors';
import { useSession } from '../../auth/SessionProvider';
import { PageLoader } from '../../components/PageLoader';
import { PageTitle } from '../../components/PageTitle';
import { DeliveryLog } from './DeliveryLog';
import { EditIntegrationModal } from './EditIntegrationModal';
import { IntegrationSummary, type TestOutcome } from './IntegrationSummary';
import { DeleteIntegrationMutation, IntegrationQuery, TestIntegrationMutation, UpdateIntegrationMutation } from './operations';
import { SecretModal } from './SecretModal';

function BackLink() {
  return (
    <Anchor component={Link} to="/integrations" size="sm" mb="xs" style={{ display: 'inline-flex', alignItems: 'center', gap: 4 }}>
      <IconArrowLeft size={14} aria-hidden /> Integrations
    </Anchor>
  );
}

export default function IntegrationPage() {
  const { integrationId } = useParams();
  const id = Number(integrationId);
  const navigate = useNavigate();
  const { can } = useSession();
  const mayRead = can('integration.read');
  const mayManage = can('integration.manage');
  const valid = Number.isInteger(id) && id > 0;
  const [{ data, fetching, error }, refetch] = useQuery({ query: IntegrationQuery, variables: { id }, pause: !valid || !mayRead });
  const [testing, test] = useMutation(TestIntegrationMutation);
  const [, update] = useMutation(UpdateIntegrationMutation);
  const [, remove] = useMutation(DeleteIntegrationMutation);
  const [testOutcome, setTestOutcome] = useState<TestOutcome | null>(null);
  const [deliveryRefresh, setDeliveryRefresh] = useState(0);
  const [editing, setEditing] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const reload = () => refetch({ requestPolicy: 'network-only' });

  if (!mayRead) {
    return (
      <>
        <BackLink />
        <PageTitle>Integration</PageTitle>
        <Alert color="blue" variant="light" title="Not available for your role">
          Integrations are visible to Managers and Admins.
        </Alert>
      </>
    );
  }
  if (!valid || (error && errorStatus(error) === 404)) {
    return (
      <>
        <BackLink />
        <PageTitle>Integration not found</PageTitle>
        <Text>This integration does not exist, was deleted, or belongs to another organisation.</Text>
      </>
    );
  }
  if (error && !data) {
    return (
      <>
        <BackLink />
        <PageTitle>Integration</PageTitle>
        <Alert color="red" role="alert" title="Could not load the integration">{errorDetail(error)}</Alert>
      </>
    );
  }
  if (fetching && !data) return <PageLoader />;
  const integration = data?.integration;
  if (!integration) return <PageLoader />;

  const runTest = async () => {
    setTestOutcome(null);
    const result = await test({ id });
    const check = result.data?.test_integration;
    setTestOutcome(check ?? { ok: false, detail: errorDetail(result.error) ?? 'The test could not run.', duration_ms: 0 });
    if (check?.delivery_id) setDeliveryRefresh((n) => n + 1);
  };

  const rotate = () => modals.openConfirmModal({
    title: 'Rotate signing secret',
    closeButtonProps: { 'aria-label': 'Close' },
    children: <Text size="sm">A new secret is issued and shown once; the current one stops working immediately.</Text>,
    labels: { confirm: 'Rotate', cancel: 'Cancel' },
    confirmProps: { color: 'orange' },
    onConfirm: async () => {
      const result = await update({ id, input: { rotate_secret: true } });
      const value = result.data?.update_integration.signing_secret;
      if (value) setSecret(value);
      else notifications.show({ color: 'red', title: 'Could not rotate the secret', message: errorDetail(result.error) });
      reload();
    },
  });

  const confirmDelete = () => modals.openConfirmModal({
    title: 'Delete integration',
    closeButtonProps: { 'aria-label': 'Close' },
    children: (
      <Text size="sm">
        Delete <strong>{integration.name}</strong> and its delivery log? Nothing more is sent to it. This cannot be undone.
      </Text>
    ),
    labels: { confirm: 'Delete', cancel: 'Cancel' },
    confirmProps: { color: 'red' },
    onConfirm: async () => {
      const result = await remove({ id }, { additionalTypenames: ['Integration', 'IntegrationPage'] });
      if (result.error) {
        notifications.show({ color: 'red', title: 'Could not delete the integration', message: errorDetail(result.error) });
        return;
      }
      notifications.show({ color: 'green', message: `Integration ${integration.name} deleted.` });
      navigate('/integrations');
    },
  });

  const actions = mayManage ? (
    <>
      <Button leftSection={<IconPlugConnected size={16} aria-hidden />} loading={testing.fetching} onClick={runTest}>
        Test connection
      </Button>
      <Button variant="default" leftSection={<IconPencil size={16} aria-hidden />} onClick={() => setEditing(true)}>
        Edit integration
      </Button>
      {integration.provider === 'webhook' && (
        <Button variant="default" leftSection={<IconKey size={16} aria-hidden />} onClick={rotate}>Rotate secret</Button>
      )}
      <Button variant="default" c="red.9" leftSection={<IconTrash size={16} aria-hidden />} onClick={confirmDelete}>
        Delete integration
      </Button>
    </>
  ) : undefined;

  return (
    <>
      <BackLink />
      <PageTitle actions={actions}>{integration.name}</PageTitle>
      <IntegrationSummary integration={integration} mayManage={mayManage} testOutcome={testOutcome} onChanged={reload} />
      {integration.provider === 'webhook' ? (
        <DeliveryLog integrationId={id} mayManage={mayManage} refreshKey={deliveryRefresh} />
      ) : (
        <Card withBorder padding="lg" mt="md">
          <Text size="sm" c="dimmed">
            S3 integrations have no delivery log: datasets are exported to them from a dataset&apos;s page.
          </Text>
        </Card>
      )}
      {mayManage && (
        <EditIntegrationModal opened={editing} onClose={() => setEditing(false)} onSaved={reload} integration={integration} />
      )}
      <SecretModal secret={secret} onClose={() => setSecret(null)} />
    </>
  );
}
