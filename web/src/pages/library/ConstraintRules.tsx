// The rule rows of a constraint set, with the value categories they can pick from.
import { Skeleton, Stack, Text } from '@mantine/core';
import { useMemo } from 'react';
import { useQuery } from 'urql';
import { graphql } from '../../gql';
import { ConstraintRuleRow } from './ConstraintRuleRow';
import type { RulePath } from './fieldTree';
import type { RuleDraft, RuleError } from './rules';

const CategoriesQuery = graphql(`
  query ConstraintCategories { constraint_categories { name description types example } }
`);

interface Props {
  rules: RuleDraft[];
  paths: RulePath[];
  loadingPaths: boolean;
  error: RuleError | null;
  /** Keys of rules saved without a field. */
  missing: Set<string>;
  readOnly: boolean;
  onChange: (index: number, rule: RuleDraft) => void;
  onRemove: (index: number) => void;
}

export function ConstraintRules({ rules, paths, loadingPaths, error, missing, readOnly, onChange, onRemove }: Props) {
  const [{ data }] = useQuery({ query: CategoriesQuery, requestPolicy: 'cache-first' });
  const categories = useMemo(() => data?.constraint_categories ?? [], [data]);
  const taken = useMemo(() => new Set(rules.map((r) => r.path).filter((p): p is string => !!p)), [rules]);

  if (loadingPaths) return <Skeleton h={120} role="status" aria-label="Loading the schema's fields" />;
  if (!rules.length) {
    return (
      <Text size="sm" c="dimmed">
        No rules: every field gets values that fit the schema.{readOnly ? '' : ' Add a rule to narrow a field (a category, a range, a pattern, a list of values, a null rate, uniqueness).'}
      </Text>
    );
  }
  return (
    <Stack component="ol" gap="sm" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Rules">
      {rules.map((rule, index) => (
        <ConstraintRuleRow
          key={rule.key}
          index={index}
          rule={rule}
          paths={paths}
          taken={taken}
          categories={categories}
          readOnly={readOnly}
          error={error?.index === index ? error
            : missing.has(rule.key) ? { index, message: 'Pick the field this rule constrains.', control: 'field' } : null}
          onChange={(next) => onChange(index, next)}
          onRemove={() => onRemove(index)}
        />
      ))}
    </Stack>
  );
}
