// The create/edit form of an integration, drawn from the provider catalogue (integration_providers):
// every provider field becomes an input of its kind, secrets are write-only PasswordInputs.
import { Alert, Button, Checkbox, Group, NativeSelect, NumberInput, PasswordInput, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useState } from 'react';
import type { CombinedError } from 'urql';
import type { IntegrationProvidersQuery } from '../../gql/graphql';
import { fieldLabel, GENERATED_FIELDS, placeErrors, providerLabel, WEBHOOK_EVENTS } from './fields';

type IntegrationProvider = IntegrationProvidersQuery['integration_providers'][number];
type ConfigValue = string | number | boolean | '';

export interface IntegrationFormValues {
  name: string;
  provider: string;
  config: Record<string, ConfigValue>;
  events: string[];
}

export interface IntegrationFormSubmit {
  name: string;
  provider: string;
  /** Only what should be sent: on edit, changed fields and typed secrets. */
  config: Record<string, ConfigValue | null>;
  events: string[] | null;
}

interface Props {
  mode: 'create' | 'edit';
  providers: IntegrationProvider[];
  initial?: { name: string; provider: string; config: Record<string, unknown>; events: string[] };
  submitLabel: string;
  onSubmit: (values: IntegrationFormSubmit) => Promise<CombinedError | undefined>;
  onCancel: () => void;
}

function editable(provider: IntegrationProvider | undefined) {
  return (provider?.fields ?? []).filter((f) => !GENERATED_FIELDS.has(f.name));
}

function startConfig(provider: IntegrationProvider | undefined, config: Record<string, unknown> = {}) {
  const values: Record<string, ConfigValue> = {};
  for (const f of editable(provider)) {
    const v = f.secret ? '' : config[f.name];
    values[f.name] = typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : '';
  }
  return values;
}

export function IntegrationForm({ mode, providers, initial, submitLabel, onSubmit, onCancel }: Props) {
  const firstProvider = initial?.provider ?? providers[0]?.name ?? 'webhook';
  const form = useForm<IntegrationFormValues>({
    initialValues: {
      name: initial?.name ?? '',
      provider: firstProvider,
      config: startConfig(providers.find((p) => p.name === firstProvider), initial?.config),
      events: initial?.events ?? [...WEBHOOK_EVENTS],
    },
    validate: {
      name: (v) => (v.trim() ? null : 'Enter a name.'),
      events: (v, values) => (values.provider === 'webhook' && v.length === 0 ? 'Choose at least one event.' : null),
    },
  });
  const [general, setGeneral] = useState<string | null>(null);
  const provider = providers.find((p) => p.name === form.values.provider);
  const fields = editable(provider);

  // A new provider brings its own fields (create only: an integration never changes provider).
  const chooseProvider = (name: string) => {
    form.setValues({ provider: name, config: startConfig(providers.find((p) => p.name === name)) });
    form.clearErrors();
    setGeneral(null);
  };

  const submit = form.onSubmit(async (values) => {
    setGeneral(null);
    const missing = fields.find((f) => f.required && (mode === 'create' || !f.secret) && values.config[f.name] === '');
    if (missing) {
      form.setFieldError(`config.${missing.name}`, `Enter the ${fieldLabel(missing.name)}.`);
      return;
    }
    const config: Record<string, ConfigValue | null> = {};
    for (const f of fields) {
      const value = values.config[f.name] ?? '';
      const before = initial?.config[f.name];
      if (mode === 'create' || f.secret) {
        if (value !== '') config[f.name] = typeof value === 'string' && !f.secret ? value.trim() : value;
      } else if (value !== (before ?? '')) {
        config[f.name] = value === '' ? null : typeof value === 'string' ? value.trim() : value;
      }
    }
    const error = await onSubmit({
      name: values.name.trim(),
      provider: values.provider,
      config,
      events: values.provider === 'webhook' ? values.events : null,
    });
    if (!error) return;
    const urlField = fields.find((f) => f.name === 'url' || f.name.endsWith('_url'))?.name ?? null;
    const placed = placeErrors(error, ['name', 'events', ...fields.map((f) => f.name)], urlField);
    for (const [name, message] of Object.entries(placed.fields)) {
      form.setFieldError(name === 'name' || name === 'events' ? name : `config.${name}`, message);
    }
    setGeneral(placed.general);
  });

  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        {general && <Alert color="red" role="alert" title="Could not save the integration">{general}</Alert>}
        <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />
        {mode === 'create' ? (
          <NativeSelect label="Provider" required description={provider?.description}
            data={providers.map((p) => ({ value: p.name, label: providerLabel(p.name) }))}
            value={form.values.provider} onChange={(event) => chooseProvider(event.currentTarget.value)} />
        ) : (
          <Text size="sm"><Text span fw={500}>Provider: </Text>{providerLabel(form.values.provider)}</Text>
        )}
        {fields.map((f) => {
          const input = form.getInputProps(`config.${f.name}`);
          const props = { ...input, value: input.value ?? '' };
          const label = fieldLabel(f.name);
          const keepHint = mode === 'edit' && f.secret ? ' Leave empty to keep the current value.' : '';
          // "Bucket name" under "Bucket" says nothing: only descriptions that add something are shown
          const says = f.description.replace(/\.$/, '').toLowerCase() !== label.toLowerCase()
            && f.description.toLowerCase() !== `${label.toLowerCase()} name`;
          const description = `${says ? f.description : ''}${says && !f.description.endsWith('.') ? '.' : ''}${keepHint}`.trim() || undefined;
          const required = f.required && !(mode === 'edit' && f.secret);
          if (f.secret) {
            return <PasswordInput key={f.name} label={label} description={description} required={required}
              autoComplete="new-password" {...props} />;
          }
          if (f.type === 'integer' || f.type === 'number') {
            return <NumberInput key={f.name} label={label} description={description} required={required} {...props} />;
          }
          if (f.type === 'boolean') {
            return <Switch key={f.name} label={label} description={description}
              {...form.getInputProps(`config.${f.name}`, { type: 'checkbox' })} />;
          }
          return <TextInput key={f.name} label={label} description={description} required={required}
            inputMode={f.name.endsWith('url') ? 'url' : undefined} {...props} />;
        })}
        {form.values.provider === 'webhook' && (
          <Checkbox.Group label="Events" description="The events this webhook receives." required
            {...form.getInputProps('events')}>
            <Stack gap={6} mt={6}>
              {WEBHOOK_EVENTS.map((e) => <Checkbox key={e} value={e} label={e} />)}
            </Stack>
          </Checkbox.Group>
        )}
        {mode === 'create' && form.values.provider === 'webhook' && (
          <Text size="sm" c="dimmed">
            The service generates the signing secret and shows it once, right after creation.
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel}>Cancel</Button>
          <Button type="submit" loading={form.submitting}>{submitLabel}</Button>
        </Group>
      </Stack>
    </form>
  );
}
