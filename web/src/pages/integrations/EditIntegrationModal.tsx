// "Edit integration": the same provider-driven form; secrets left empty are kept by the server.
import { Alert, Modal } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { PageLoader } from '../../components/PageLoader';
import { IntegrationForm, type IntegrationFormSubmit } from './IntegrationForm';
import { ProvidersQuery, UpdateIntegrationMutation } from './operations';

interface Props {
  opened: boolean;
  onClose: () => void;
  onSaved: () => void;
  integration: { integration_id: number; name: string; provider: string; config: unknown; events: string[] };
}

export function EditIntegrationModal({ opened, onClose, onSaved, integration }: Props) {
  const [providers] = useQuery({ query: ProvidersQuery, pause: !opened });
  const [, update] = useMutation(UpdateIntegrationMutation);

  const submit = async (values: IntegrationFormSubmit) => {
    const changedConfig = Object.keys(values.config).length > 0;
    const sameEvents = JSON.stringify(values.events) === JSON.stringify(integration.events);
    const input = {
      name: values.name !== integration.name ? values.name : null,
      config: changedConfig ? values.config : null,
      events: values.events && !sameEvents ? values.events : null,
    };
    if (!input.name && !input.config && !input.events) {
      onClose();
      return undefined;
    }
    const result = await update({ id: integration.integration_id, input });
    if (result.error) return result.error;
    notifications.show({ color: 'green', message: 'Integration saved.' });
    onSaved();
    onClose();
    return undefined;
  };

  return (
    <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={opened} onClose={onClose} title="Edit integration" size="lg">
      {providers.fetching && !providers.data && <PageLoader />}
      {providers.error && <Alert color="red" role="alert">{errorDetail(providers.error)}</Alert>}
      {providers.data && opened && (
        <IntegrationForm mode="edit" providers={providers.data.integration_providers} submitLabel="Save changes"
          initial={{
            name: integration.name,
            provider: integration.provider,
            config: (integration.config ?? {}) as Record<string, unknown>,
            events: integration.events,
          }}
          onSubmit={submit} onCancel={onClose} />
      )}
    </Modal>
  );
}
