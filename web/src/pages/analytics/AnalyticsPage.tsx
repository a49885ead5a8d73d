import { PageTitle } from '../../components/PageTitle';

export default function AnalyticsPage() {
  return <PageTitle>Analytics</PageTitle>;
}
