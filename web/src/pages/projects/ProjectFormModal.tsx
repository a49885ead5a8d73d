// Create or edit a project: name, description, tags.
import { Alert, Button, Group, Modal, Stack, TagsInput, TextInput, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect, useState } from 'react';
import type { CombinedError } from 'urql';
import { placeErrors } from './serverErrors';

export interface ProjectValues {
  name: string;
  description: string;
  tags: string[];
}

interface Props {
  opened: boolean;
  onClose: () => void;
  title: string;
  submitLabel: string;
  initial: ProjectValues;
  /** Saves; returns the server's error, if any, to be shown at its field. */
  onSubmit: (values: ProjectValues) => Promise<CombinedError | undefined>;
}

const FIELDS = ['name', 'description', 'tags'] as const;

export function ProjectFormModal({ opened, onClose, title, submitLabel, initial, onSubmit }: Props) {
  const form = useForm<ProjectValues>({
    initialValues: initial,
    validate: { name: (v) => (v.trim() ? null : 'Give the project a name.') },
  });
  const [general, setGeneral] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (opened) {
      form.setValues(initial);
      form.resetDirty(initial);
      form.clearErrors();
      setGeneral(null);
    }
  }, [opened]); // eslint-disable-line react-hooks/exhaustive-deps

  const submit = form.onSubmit(async (values) => {
    setSaving(true);
    setGeneral(null);
    const error = await onSubmit({ ...values, name: values.name.trim() });
    setSaving(false);
    if (!error) return;
    const placed = placeErrors(error, FIELDS);
    form.setErrors(placed.fields);
    setGeneral(placed.general);
  });

  return (
    <Modal opened={opened} onClose={onClose} title={title} size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          {general && <Alert color="red" role="alert">{general}</Alert>}
          <TextInput label="Name" required data-autofocus maxLength={200} {...form.getInputProps('name')} />
          <Textarea label="Description" autosize minRows={3} maxRows={8} maxLength={5000} {...form.getInputProps('description')} />
          <TagsInput label="Tags" description="Press Enter after each tag" clearable maxTags={50}
            {...form.getInputProps('tags')} />
          <Group justify="flex-end" gap="sm" mt="xs">
            <Button variant="default" onClick={onClose}>Cancel</Button>
            <Button type="submit" loading={saving}>{submitLabel}</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
