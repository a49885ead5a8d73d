import { PageTitle } from '../../components/PageTitle';

export default function ConstraintSetPage() {
  return <PageTitle>Constraint set</PageTitle>;
}
