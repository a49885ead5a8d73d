import { Alert } from '@mantine/core';
import { IconPlugConnectedX } from '@tabler/icons-react';
import { useServerReachable } from '../api/connection';

export function ConnectionBanner() {
  const reachable = useServerReachable();
  if (reachable) return null;
  return (
    <Alert role="alert" color="red" icon={<IconPlugConnectedX aria-hidden />} title="Connection lost" radius={0}>
      The server cannot be reached. Your changes are not lost; the page updates again once the connection is back.
    </Alert>
  );
}
