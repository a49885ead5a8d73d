// A delivery status as a dot badge: the colour is a hint, the text (in the body colour) carries it.
import { Badge } from '@mantine/core';

const COLORS: Record<string, string> = { succeeded: 'green', failed: 'red', pending: 'yellow' };

export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge variant="dot" color={COLORS[status] ?? 'gray'} tt="none" style={{ flexShrink: 0, minWidth: 'max-content' }}>
      {status}
    </Badge>
  );
}
