// urql contexts must keep their identity between renders (a new object re-runs the query).
export const SCHEMA_LIST_CONTEXT = { additionalTypenames: ['Schema'] };
export const CONSTRAINT_LIST_CONTEXT = { additionalTypenames: ['ConstraintSet'] };
