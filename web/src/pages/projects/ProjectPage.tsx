import { PageTitle } from '../../components/PageTitle';

export default function ProjectPage() {
  return <PageTitle>Project</PageTitle>;
}
