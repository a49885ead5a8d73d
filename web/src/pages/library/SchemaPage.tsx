import { PageTitle } from '../../components/PageTitle';

export default function SchemaPage() {
  return <PageTitle>Schema</PageTitle>;
}
