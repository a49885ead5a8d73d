// The new API token's secret, shown once with a copy button.
import { Alert, Button, CopyButton, Group, Modal, Stack, Text, Textarea } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconCheck, IconCopy } from '@tabler/icons-react';

export function NewTokenModal({ created, onClose }: { created: { name: string; token: string } | null; onClose: () => void }) {
  return (
    <Modal opened={created !== null} onClose={onClose} title="Copy your new token" centered size="lg"
      closeOnClickOutside={false}>
      {created && (
        <Stack>
          <Text size="sm">The token <strong>{created.name}</strong> is ready.</Text>
          <Alert color="yellow" title="It will not be shown again">
            Copy it now and keep it somewhere safe. If you lose it, revoke it and create a new one.
          </Alert>
          <Textarea label="New API token" value={created.token} readOnly autosize minRows={1}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', wordBreak: 'break-all' } }}
            onFocus={(e) => e.currentTarget.select()} />
          <Group justify="flex-end">
            <CopyButton value={created.token}>
              {({ copied, copy }) => (
                <Button color={copied ? 'teal' : undefined}
                  leftSection={copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}
                  onClick={() => { copy(); notifications.show({ message: 'The token is copied.' }); }}>
                  Copy token
                </Button>
              )}
            </CopyButton>
            <Button variant="default" onClick={onClose}>Done</Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
