import { PageTitle } from '../../components/PageTitle';

export default function IntegrationPage() {
  return <PageTitle>Integration</PageTitle>;
}
