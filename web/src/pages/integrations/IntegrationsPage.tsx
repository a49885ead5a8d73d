import { PageTitle } from '../../components/PageTitle';

export default function IntegrationsPage() {
  return <PageTitle>Integrations</PageTitle>;
}
