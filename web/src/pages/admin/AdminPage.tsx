import { PageTitle } from '../../components/PageTitle';

export default function AdminPage() {
  return <PageTitle>Administration</PageTitle>;
}
