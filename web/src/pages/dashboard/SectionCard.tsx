// A titled dashboard section (h2, so every section is a landmark heading under the page's h1).
import { Group, Paper, Title } from '@mantine/core';
import type { ReactNode } from 'react';

export function SectionCard({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  const id = `section-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby={id}>
      <Group justify="space-between" mb="sm" wrap="wrap" gap="xs">
        <Title order={2} size="h4" id={id}>{title}</Title>
        {actions}
      </Group>
      {children}
    </Paper>
  );
}
