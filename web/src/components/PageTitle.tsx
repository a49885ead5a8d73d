import { Group, Title } from '@mantine/core';
import { useEffect, type ReactNode } from 'react';

/** The page's h1 (its name, also the document title) with optional actions on the right. */
export function PageTitle({ children, actions }: { children: string; actions?: ReactNode }) {
  useEffect(() => {
    document.title = `${children} · Test Data Generation`;
  }, [children]);
  return (
    <Group justify="space-between" mb="md" wrap="wrap" gap="sm">
      <Title order={1} size="h2">{children}</Title>
      {actions && <Group gap="xs">{actions}</Group>}
    </Group>
  );
}
