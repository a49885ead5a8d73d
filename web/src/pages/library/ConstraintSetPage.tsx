// The constraint-set editor at /library/constraints/new?schema_id= and /library/constraints/:id:
// this page loads the saved set (if any) and hands it to the editor.
import { Alert, Anchor, Stack } from '@mantine/core';
import { Link, useParams, useSearchParams } from 'react-router';
import { useQuery } from 'urql';
import { errorDetail } from '../../api/errors';
import { PageLoader } from '../../components/PageLoader';
import { PageTitle } from '../../components/PageTitle';
import { graphql } from '../../gql';
import { ConstraintSetEditor, type SavedSet } from './ConstraintSetEditor';

const ConstraintSetDetailQuery = graphql(`
  query ConstraintSetDetail($constraint_id: Int!) {
    constraint_set(constraint_id: $constraint_id) {
      constraint_id name description schema_id root rules created_by updated_at
    }
  }
`);

export default function ConstraintSetPage() {
  const { constraintId } = useParams();
  const [params] = useSearchParams();
  const id = constraintId == null ? null : Number(constraintId);
  const [{ data, error, fetching }] = useQuery({
    query: ConstraintSetDetailQuery, variables: { constraint_id: id ?? 0 }, pause: id == null || !Number.isInteger(id),
  });

  if (id == null) {
    const schemaId = Number(params.get('schema_id'));
    return <ConstraintSetEditor key="new" saved={null} initialSchemaId={Number.isInteger(schemaId) && schemaId > 0 ? schemaId : null} />;
  }
  if (error && !data) {
    return (
      <Stack>
        <PageTitle>Constraint set</PageTitle>
        <Alert color="red" role="alert" title="Could not load the constraint set">{errorDetail(error)}</Alert>
        <Anchor component={Link} to="/library?tab=constraints">Back to the constraint sets</Anchor>
      </Stack>
    );
  }
  if (!data) return fetching ? <PageLoader /> : null;
  const row = data.constraint_set;
  const saved: SavedSet = {
    ...row,
    rules: Array.isArray(row.rules) ? (row.rules as Record<string, unknown>[]) : [],
  };
  // a new key after each save resets the editor to what the server stored
  return <ConstraintSetEditor key={`${row.constraint_id}:${row.updated_at}`} saved={saved} initialSchemaId={row.schema_id} />;
}
