import { PageTitle } from '../../components/PageTitle';

export default function ProjectsPage() {
  return <PageTitle>Projects</PageTitle>;
}
