// "New integration": the provider-driven form in a modal; a webhook's secret is shown once afterwards.
import { Alert, Modal } from '@mantine/core';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useMutation, useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { PageLoader } from '../../components/PageLoader';
import { graphql } from '../../gql';
import { IntegrationForm, type IntegrationFormSubmit } from './IntegrationForm';
import { ProvidersQuery } from './operations';
import { SecretModal } from './SecretModal';

const CreateIntegrationMutation = graphql(`
  mutation CreateIntegration($input: IntegrationCreateInput!) {
    create_integration(input: $input) { integration_id name provider signing_secret }
  }
`);

export function NewIntegrationModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const navigate = useNavigate();
  const [providers] = useQuery({ query: ProvidersQuery, pause: !opened });
  const [, create] = useMutation(CreateIntegrationMutation);
  const [created, setCreated] = useState<{ id: number; secret: string } | null>(null);

  const submit = async (values: IntegrationFormSubmit) => {
    const result = await create(
      { input: { name: values.name, provider: values.provider, config: values.config, events: values.events } },
      { additionalTypenames: ['Integration', 'IntegrationPage'] },
    );
    const saved = result.data?.create_integration;
    if (!saved) return result.error;
    onClose();
    if (saved.signing_secret) setCreated({ id: saved.integration_id, secret: saved.signing_secret });
    else navigate(`/integrations/${saved.integration_id}`);
    return undefined;
  };

  return (
    <>
      <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={opened} onClose={onClose} title="New integration" size="lg">
        {providers.fetching && !providers.data && <PageLoader />}
        {providers.error && <Alert color="red" role="alert">{errorDetail(providers.error)}</Alert>}
        {providers.data && (
          <IntegrationForm mode="create" providers={providers.data.integration_providers}
            submitLabel="Create integration" onSubmit={submit} onCancel={onClose} />
        )}
      </Modal>
      <SecretModal secret={created?.secret ?? null} onClose={() => {
        const id = created?.id;
        setCreated(null);
        if (id) navigate(`/integrations/${id}`);
      }} />
    </>
  );
}
