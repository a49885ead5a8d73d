import { PageTitle } from '../../components/PageTitle';

export default function SettingsPage() {
  return <PageTitle>Settings</PageTitle>;
}
