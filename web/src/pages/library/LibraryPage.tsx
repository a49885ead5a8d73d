import { PageTitle } from '../../components/PageTitle';

export default function LibraryPage() {
  return <PageTitle>Library</PageTitle>;
}
