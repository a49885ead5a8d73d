import { Badge } from '@mantine/core';

const COLORS: Record<string, string> = {
  queued: 'gray',
  running: 'blue',
  completed: 'green',
  failed: 'red',
  cancelled: 'orange',
};

/** A dataset's status as a tinted badge (the word is always shown, colour is not the only cue); the
 * text stays the page's text colour because Mantine's green/orange on their tints fail AA contrast. */
export function DatasetStatusBadge({ status }: { status: string }) {
  return (
    <Badge color={COLORS[status] ?? 'gray'} variant="light" tt="none" c="var(--mantine-color-text)"
      style={{ minWidth: 'max-content' }}>
      {status}
    </Badge>
  );
}
