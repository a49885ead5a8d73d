// Creating a tenant (with its first Admin) and editing a tenant's settings (TenantUpdateInput).
import { Alert, Button, Group, Modal, NumberInput, PasswordInput, Stack, Switch, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useEffect, useState } from 'react';
import { useMutation } from 'urql';
import { graphql } from '../../gql';
import type { TenantUpdateInput } from '../../gql/graphql';
import { placeServerError } from '../settings/serverErrors';
import type { TenantItem } from './TenantsTab';

const CreateTenantMutation = graphql(`
  mutation AdminCreateTenant($input: TenantCreateInput!) {
    create_tenant(input: $input) { tenant_id name admin_username }
  }
`);

const UpdateTenantMutation = graphql(`
  mutation AdminUpdateTenant($id: Int!, $input: TenantUpdateInput!) {
    update_tenant(tenant_id: $id, input: $input) {
      tenant_id name is_active max_record_count max_concurrent_generations retention_days updated_at
    }
  }
`);

interface NewProps {
  opened: boolean;
  onClose: () => void;
  onCreated: () => void;
}

export function NewTenantModal({ opened, onClose, onCreated }: NewProps) {
  const [state, create] = useMutation(CreateTenantMutation);
  const [general, setGeneral] = useState<string | null>(null);
  const form = useForm({
    initialValues: { name: '', admin_username: '', admin_email: '', admin_password: '' },
    validate: {
      name: (v) => (v.trim() ? null : 'Name the tenant.'),
      admin_username: (v) => (v.trim().length >= 3 ? null : 'Use at least 3 characters.'),
      admin_email: (v) => (/^\S+@\S+\.\S+$/.test(v.trim()) ? null : 'Enter an email address.'),
      admin_password: (v) => (v.length >= 8 ? null : 'Use at least 8 characters.'),
    },
  });
  const close = () => {
    form.reset();
    setGeneral(null);
    onClose();
  };
  const submit = form.onSubmit(async (values) => {
    setGeneral(null);
    const result = await create({
      input: { name: values.name.trim(), admin_username: values.admin_username.trim(), admin_email: values.admin_email.trim(), admin_password: values.admin_password },
    });
    const created = result.data?.create_tenant;
    if (!created) {
      const fields = { name: 'name', admin_username: 'admin_username', admin_email: 'admin_email', admin_password: 'admin_password' };
      const placed = placeServerError(result.error, fields);
      form.setErrors(placed.byField);
      setGeneral(placed.general);
      return;
    }
    notifications.show({ color: 'green', message: `Tenant ${created.name} is created; ${created.admin_username} can log in as its Admin.` });
    onCreated();
    close();
  });
  return (
    <Modal opened={opened} onClose={close} title="New tenant" centered>
      <form onSubmit={submit} noValidate>
        <Stack>
          {general && <Alert color="red" role="alert" title="Could not create the tenant">{general}</Alert>}
          <TextInput label="Tenant name" required data-autofocus maxLength={100} {...form.getInputProps('name')} />
          <TextInput label="Admin username" description="The tenant's first Admin" required autoComplete="off"
            {...form.getInputProps('admin_username')} />
          <TextInput label="Admin email" type="email" required autoComplete="off" {...form.getInputProps('admin_email')} />
          <PasswordInput label="Admin password" description="At least 8 characters" required autoComplete="new-password"
            {...form.getInputProps('admin_password')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>Cancel</Button>
            <Button type="submit" loading={state.fetching}>Create tenant</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

interface EditValues {
  name: string;
  is_active: boolean;
  max_record_count: number | string;
  max_concurrent_generations: number | string;
  retention_days: number | string;
}

function valuesOf(tenant: TenantItem | null): EditValues {
  return {
    name: tenant?.name ?? '',
    is_active: tenant?.is_active ?? true,
    max_record_count: tenant?.max_record_count ?? '',
    max_concurrent_generations: tenant?.max_concurrent_generations ?? '',
    retention_days: tenant?.retention_days ?? '',
  };
}

/** Only what changed is sent: the server needs at least one setting and keeps the rest. */
function changes(tenant: TenantItem, v: EditValues): TenantUpdateInput {
  const input: TenantUpdateInput = {};
  if (v.name.trim() !== tenant.name) input.name = v.name.trim();
  if (v.is_active !== tenant.is_active) input.is_active = v.is_active;
  if (typeof v.max_record_count === 'number' && v.max_record_count !== tenant.max_record_count) input.max_record_count = v.max_record_count;
  if (typeof v.max_concurrent_generations === 'number' && v.max_concurrent_generations !== tenant.max_concurrent_generations) {
    input.max_concurrent_generations = v.max_concurrent_generations;
  }
  if (typeof v.retention_days === 'number' && v.retention_days !== tenant.retention_days) input.retention_days = v.retention_days;
  return input;
}

export function EditTenantModal({ tenant, onClose }: { tenant: TenantItem | null; onClose: () => void }) {
  const [state, update] = useMutation(UpdateTenantMutation);
  const [general, setGeneral] = useState<string | null>(null);
  const form = useForm<EditValues>({
    initialValues: valuesOf(tenant),
    validate: { name: (v) => (v.trim() ? null : 'Name the tenant.') },
  });
  useEffect(() => {
    form.setValues(valuesOf(tenant));
    form.resetDirty(valuesOf(tenant));
    form.clearErrors();
    setGeneral(null);
  }, [tenant]); // eslint-disable-line react-hooks/exhaustive-deps

  const submit = form.onSubmit(async (values) => {
    if (!tenant) return;
    setGeneral(null);
    const input = changes(tenant, values);
    if (Object.keys(input).length === 0) {
      onClose();
      return;
    }
    const result = await update({ id: tenant.tenant_id, input });
    if (result.error) {
      const fields = { name: 'name', is_active: 'is_active', max_record_count: 'max_record_count', max_concurrent_generations: 'max_concurrent_generations', retention_days: 'retention_days' };
      const placed = placeServerError(result.error, fields);
      form.setErrors(placed.byField);
      setGeneral(placed.general);
      return;
    }
    notifications.show({ color: 'green', message: `Tenant ${values.name.trim()} is saved.` });
    onClose();
  });
  return (
    <Modal opened={tenant !== null} onClose={onClose} title={tenant ? `Edit tenant ${tenant.name}` : 'Edit tenant'} centered>
      <form onSubmit={submit} noValidate>
        <Stack>
          {general && <Alert color="red" role="alert" title="Could not save the tenant">{general}</Alert>}
          <TextInput label="Tenant name" required maxLength={100} {...form.getInputProps('name')} />
          <Switch label="Active" description="Users of an inactive tenant cannot log in"
            {...form.getInputProps('is_active', { type: 'checkbox' })} />
          <NumberInput label="Max records per dataset" min={1} max={1_000_000_000} thousandSeparator="," allowDecimal={false}
            allowNegative={false} {...form.getInputProps('max_record_count')} />
          <NumberInput label="Max concurrent generations" min={1} max={64} allowDecimal={false} allowNegative={false}
            {...form.getInputProps('max_concurrent_generations')} />
          <NumberInput label="Retention days" description="Files of completed datasets are removed after this many days"
            placeholder="Keep forever" min={1} max={3650} allowDecimal={false} allowNegative={false}
            {...form.getInputProps('retention_days')} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={state.fetching}>Save tenant</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
