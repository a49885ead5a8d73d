// One rule of a constraint set: the field it constrains and how. Every control's accessible name
// names the rule ("Category for email"), and the server's 422 about this rule is shown here.
import { Alert, Button, Group, NumberInput, Paper, Select, SimpleGrid, Stack, Switch, TagsInput, Text, TextInput } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { useEffect, useMemo, useRef } from 'react';
import type { RulePath } from './fieldTree';
import { TypeBadge } from './SchemaFieldTree';
import { DISTRIBUTIONS, isLengthType, TEMPORAL, WITH_MEAN, type RuleDraft, type RuleError } from './rules';

export interface CategoryOption {
  name: string;
  description: string;
  types: string[];
}

interface Props {
  index: number;
  rule: RuleDraft;
  paths: RulePath[];
  /** Paths other rules already use (one rule per path). */
  taken: Set<string>;
  categories: CategoryOption[];
  error: RuleError | null;
  readOnly: boolean;
  onChange: (rule: RuleDraft) => void;
  onRemove: () => void;
}

export function ConstraintRuleRow({ index, rule, paths, taken, categories, error, readOnly, onChange, onRemove }: Props) {
  const field = paths.find((p) => p.path === rule.path);
  const type = field?.type;
  const who = rule.path || `rule ${index + 1}`;
  const set = <K extends keyof RuleDraft>(key: K, value: RuleDraft[K]) => onChange({ ...rule, [key]: value });
  const rowRef = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (error) rowRef.current?.scrollIntoView({ block: 'center', behavior: 'smooth' });
  }, [error]);

  const byPath = useMemo(() => new Map(paths.map((p) => [p.path, p])), [paths]);
  const fieldOptions = useMemo(
    () => paths.map((p) => ({ value: p.path, label: p.path, disabled: taken.has(p.path) && p.path !== rule.path })),
    [paths, taken, rule.path],
  );
  // only the categories whose value types fit the field (all of them until a field is picked)
  const categoryOptions = useMemo(() => {
    const fitting = categories.filter((c) => !type || c.types.length === 0 || c.types.includes(type));
    const list = fitting.map((c) => ({ value: c.name, label: c.name }));
    if (rule.category && !list.some((o) => o.value === rule.category)) list.unshift({ value: rule.category, label: rule.category });
    return list;
  }, [categories, type, rule.category]);
  const describe = useMemo(() => new Map(categories.map((c) => [c.name, c.description])), [categories]);

  const lengths = isLengthType(type);
  const boundKind = lengths ? ' length' : '';
  const boundHint = TEMPORAL.has(type ?? '') ? `ISO ${type}` : undefined;
  const mark = (control: RuleError['control']) => (error && error.control === control ? true : undefined);
  const nullable = !field || !field.required || field.nullable;
  const enumValues = useMemo(
    () => (field?.enum ?? []).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))),
    [field],
  );
  // `after` orders two time fields of one object and one type
  const parent = (p: string) => (p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : '');
  const afterOptions = useMemo(() => {
    const fitting = field && TEMPORAL.has(field.type)
      ? paths.filter((p) => p.path !== field.path && p.type === field.type && parent(p.path) === parent(field.path)).map((p) => p.path)
      : [];
    return rule.after && !fitting.includes(rule.after) ? [rule.after, ...fitting] : fitting;
  }, [field, paths, rule.after]);
  const shaped = !type || !['boolean'].includes(type);

  return (
    <Paper ref={rowRef} withBorder p="sm" radius="md" component="li" aria-label={`Rule for ${who}`}
      style={error ? { borderColor: 'var(--mantine-color-red-6)' } : undefined}>
      <Stack gap="xs">
        <Group align="flex-end" gap="sm" wrap="wrap">
          <Select label="Field" aria-label={`Field for ${who}`} placeholder={readOnly ? undefined : 'Pick a field'} searchable data={fieldOptions}
            value={rule.path} onChange={(v) => onChange({ ...rule, path: v, category: null })} allowDeselect={false}
            nothingFoundMessage="No field matches" error={mark('field')} readOnly={readOnly} style={{ flex: '2 1 220px' }}
            renderOption={({ option }) => (
              <Group gap={6} wrap="nowrap">
                <Text size="sm" ff="monospace">{option.label}</Text>
                {/* the option's name stays the bare path (as typed and as tests pick it); the type is visual */}
                {byPath.get(option.value) && <span aria-hidden><TypeBadge type={byPath.get(option.value)!.type} /></span>}
              </Group>
            )}
            rightSectionWidth={type ? 90 : undefined}
            rightSection={type ? <TypeBadge type={type} /> : undefined}
            rightSectionPointerEvents="none"
          />
          <Select label="Category" aria-label={`Category for ${who}`} placeholder="Any" searchable clearable
            data={categoryOptions} value={rule.category} onChange={(v) => set('category', v)} error={mark('category')}
            nothingFoundMessage="No category fits" readOnly={readOnly} style={{ flex: '2 1 200px' }}
            description={rule.category
              ? describe.get(rule.category)
              : field?.inferredCategory ? `Inferred: ${field.inferredCategory}` : undefined}
            renderOption={({ option }) => (
              <div>
                <Text size="sm">{option.label}</Text>
                <Text size="xs" c="dimmed" aria-hidden>{describe.get(option.value)}</Text>
              </div>
            )}
          />
          {!readOnly && (
            <Button variant="subtle" color="red" onClick={onRemove} aria-label={`Remove rule for ${who}`}
              leftSection={<IconTrash size={16} aria-hidden />}>
              Remove rule
            </Button>
          )}
        </Group>
        <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} spacing="sm" verticalSpacing="xs">
          <TextInput label={`Minimum${boundKind}`} aria-label={`Minimum${boundKind} for ${who}`} value={rule.min}
            onChange={(e) => set('min', e.currentTarget.value)} placeholder={boundHint} error={mark('min')}
            disabled={type === 'boolean'} readOnly={readOnly} inputMode={lengths || type === 'integer' || type === 'number' ? 'decimal' : undefined} />
          <TextInput label={`Maximum${boundKind}`} aria-label={`Maximum${boundKind} for ${who}`} value={rule.max}
            onChange={(e) => set('max', e.currentTarget.value)} placeholder={boundHint} error={mark('max')}
            disabled={type === 'boolean'} readOnly={readOnly} inputMode={lengths || type === 'integer' || type === 'number' ? 'decimal' : undefined} />
          <TextInput label="Pattern" aria-label={`Pattern for ${who}`} value={rule.pattern} placeholder={readOnly ? undefined : 'Regular expression'}
            onChange={(e) => set('pattern', e.currentTarget.value)} error={mark('pattern')}
            disabled={!!type && type !== 'string'} readOnly={readOnly}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }} />
          <TagsInput label="Values" aria-label={`Values for ${who}`} value={rule.values} onChange={(v) => set('values', v)}
            data={enumValues} comboboxProps={{ withinPortal: true }}
            placeholder={rule.values.length || readOnly ? undefined : enumValues.length ? 'Pick or type' : 'Type, then Enter'}
            error={mark('values')} readOnly={readOnly} clearable />
          <NumberInput label="Null rate" aria-label={`Null rate for ${who}`} min={0} max={1} step={0.05} decimalScale={3}
            clampBehavior="strict" allowNegative={false} value={rule.nullRate} onChange={(v) => set('nullRate', v)}
            error={mark('nullRate')} disabled={!nullable} readOnly={readOnly} placeholder={nullable ? '0 to 1' : 'Not nullable'} />
          <Switch label="Unique" aria-label={`Unique for ${who}`} checked={rule.unique} mt={{ base: 0, lg: 30 }}
            onChange={(e) => set('unique', e.currentTarget.checked)} error={mark('unique')} disabled={readOnly} />
        </SimpleGrid>
        <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} spacing="sm" verticalSpacing="xs">
          <Select label="Distribution" aria-label={`Distribution for ${who}`} placeholder="Default" clearable
            data={DISTRIBUTIONS} value={rule.distribution}
            onChange={(v) => onChange({ ...rule, distribution: v, ...(v && WITH_MEAN.has(v) ? {} : { mean: '', sd: '' }) })}
            error={mark('distribution')} readOnly={readOnly} disabled={!shaped} />
          {rule.distribution && WITH_MEAN.has(rule.distribution) && (
            <>
              <TextInput label="Mean" aria-label={`Mean for ${who}`} value={rule.mean} inputMode="decimal"
                onChange={(e) => set('mean', e.currentTarget.value)} readOnly={readOnly}
                placeholder={rule.distribution === 'normal' ? 'Required' : 'Optional'} />
              <TextInput label="Standard deviation" aria-label={`Standard deviation for ${who}`} value={rule.sd} inputMode="decimal"
                onChange={(e) => set('sd', e.currentTarget.value)} readOnly={readOnly}
                placeholder={rule.distribution === 'normal' ? 'Required' : 'Optional'} />
            </>
          )}
          <NumberInput label="Edge rate" aria-label={`Edge rate for ${who}`} min={0} max={1} step={0.05} decimalScale={3}
            clampBehavior="strict" allowNegative={false} value={rule.edgeRate} onChange={(v) => set('edgeRate', v)}
            error={mark('edgeRate')} readOnly={readOnly} disabled={!shaped} placeholder="0 to 1"
            description="Share of boundary values" />
          {afterOptions.length > 0 && (
            <Select label="After" aria-label={`After for ${who}`} placeholder="No order" clearable data={afterOptions}
              value={rule.after} onChange={(v) => set('after', v)} error={mark('after')} readOnly={readOnly}
              description="Always later than this field" />
          )}
        </SimpleGrid>
        {error && (
          <Alert color="red" variant="light" role="alert" p="xs">{error.message}</Alert>
        )}
      </Stack>
    </Paper>
  );
}
