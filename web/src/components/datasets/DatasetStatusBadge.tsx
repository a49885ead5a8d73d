import { Badge } from '@mantine/core';

const COLORS: Record<string, string> = {
  queued: 'gray',
  running: 'blue',
  completed: 'green',
  failed: 'red',
  cancelled: 'orange',
};

/** A dataset's status as a coloured badge (the word is always shown, colour is not the only cue). */
export function DatasetStatusBadge({ status }: { status: string }) {
  return (
    <Badge color={COLORS[status] ?? 'gray'} variant="light" tt="none" style={{ minWidth: 'max-content' }}>
      {status}
    </Badge>
  );
}
