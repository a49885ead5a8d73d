import { Group, Title } from '@mantine/core';
import { useEffect, type ReactNode } from 'react';

/** The page's h1 (its name, also the document title) with optional actions on the right. */
export function PageTitle({ children, actions }: { children: string; actions?: ReactNode }) {
  useEffect(() => {
    document.title = `${children} · Test Data Generation`;
  }, [children]);
  return (
    <Group justify="space-between" mb="md" wrap="wrap" gap="sm">
      {/* a long name without spaces (a generated one) wraps rather than widening a phone's page */}
      <Title order={1} size="h2" style={{ overflowWrap: 'anywhere', minWidth: 0 }}>{children}</Title>
      {actions && <Group gap="xs" wrap="wrap">{actions}</Group>}
    </Group>
  );
}
