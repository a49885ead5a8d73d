import { PageTitle } from '../../components/PageTitle';

export default function NotificationsPage() {
  return <PageTitle>Notifications</PageTitle>;
}
