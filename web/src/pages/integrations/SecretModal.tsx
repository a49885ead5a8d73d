// A webhook's signing secret, shown once (after creation or rotation) with a copy button.
import { Alert, Button, CopyButton, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

interface Props {
  secret: string | null;
  onClose: () => void;
}

export function SecretModal({ secret, onClose }: Props) {
  return (
    <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={!!secret} onClose={onClose} title="Copy your signing secret" closeOnClickOutside={false} size="lg">
      <Stack>
        <Alert color="yellow" variant="light">
          This is the only time the secret is shown. Store it where your receiver can verify the
          webhook-signature header with it; a lost secret can only be replaced (Rotate secret).
        </Alert>
        <TextInput label="Signing secret" value={secret ?? ''} readOnly
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          onFocus={(event) => event.currentTarget.select()} />
        <Group justify="space-between">
          <CopyButton value={secret ?? ''} timeout={2000}>
            {({ copied, copy }) => (
              <Group gap="xs">
                <Button color={copied ? 'teal' : 'blue'} variant={copied ? 'light' : 'filled'} onClick={copy}
                  leftSection={copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}>
                  Copy secret
                </Button>
                <Text size="sm" c="teal" aria-live="polite">{copied ? 'Copied' : ''}</Text>
              </Group>
            )}
          </CopyButton>
          <Button variant="default" onClick={onClose}>Done</Button>
        </Group>
        <Text size="xs" c="dimmed">
          Receivers check the HMAC-SHA256 of webhook-id, webhook-timestamp and the body with this key.
        </Text>
      </Stack>
    </Modal>
  );
}
