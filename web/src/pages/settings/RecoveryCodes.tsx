// The ten recovery codes, shown once right after two-factor authentication is turned on.
import { Alert, Button, CopyButton, Group, List, Paper, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconCheck, IconCopy, IconDownload } from '@tabler/icons-react';

function download(codes: string[]) {
  const text = `Test Data Generation recovery codes\nEach code works once, in place of an authentication code.\n\n${codes.join('\n')}\n`;
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = 'tdg-recovery-codes.txt';
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const text = codes.join('\n');
  return (
    <Stack>
      <Alert color="yellow" title="Save your recovery codes now" styles={{ title: { color: 'var(--mantine-color-text)' } }}>
        Two-factor authentication is on. These codes are shown only once: each one logs you in once if you
        lose your authenticator app.
      </Alert>
      <Paper withBorder p="md" radius="md">
        <List aria-label="Recovery codes" listStyleType="none"
          style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(10rem, 1fr))', gap: 'var(--mantine-spacing-xs)' }}>
          {codes.map((code) => (
            <List.Item key={code}><Text ff="monospace" size="sm">{code}</Text></List.Item>
          ))}
        </List>
      </Paper>
      <Group>
        <CopyButton value={text}>
          {({ copied, copy }) => (
            <Button variant="default" color={copied ? 'teal' : undefined}
              onClick={() => { copy(); notifications.show({ message: 'The recovery codes are copied.' }); }}
              leftSection={copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}>
              Copy recovery codes
            </Button>
          )}
        </CopyButton>
        <Button variant="default" onClick={() => download(codes)} leftSection={<IconDownload size={16} aria-hidden />}>
          Download recovery codes
        </Button>
        <Button variant="default" onClick={onDone}>I have saved them</Button>
      </Group>
    </Stack>
  );
}
