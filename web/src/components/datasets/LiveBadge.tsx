import { Badge, Tooltip } from '@mantine/core';

/** Whether a dataset list updates live (subscription) or by the 2 s polling fallback. */
export function LiveBadge({ mode }: { mode: 'live' | 'polling' }) {
  const live = mode === 'live';
  return (
    <Tooltip label={live ? 'Updates arrive as they happen' : 'Refreshed every 2 seconds'} withArrow>
      <Badge variant="dot" color={live ? 'green' : 'gray'} tt="none" tabIndex={0}>{live ? 'Live' : 'Auto-refresh'}</Badge>
    </Tooltip>
  );
}
