// A shell command to reproduce the dataset, shown as text with its Copy button.
import { Box, Button, Code, CopyButton, Group, ScrollArea, Text } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';

interface Props {
  /** The button's name: "Copy as curl". */
  label: string;
  hint: string;
  command: string;
}

export function CommandBlock({ label, hint, command }: Props) {
  return (
    // as wide as its column at most: the command scrolls inside, the page does not
    <Box maw="100%" style={{ minWidth: 0 }}>
      <Group justify="space-between" wrap="wrap" gap="xs" mb={4}>
        <Text size="sm" c="dimmed" style={{ flex: 1, minWidth: 0, overflowWrap: 'anywhere' }}>{hint}</Text>
        <CopyButton value={command}>
          {({ copied, copy }) => (
            <Button size="xs" variant="default" onClick={copy}
              leftSection={copied ? <IconCheck size={14} aria-hidden /> : <IconCopy size={14} aria-hidden />}>
              {copied ? 'Copied' : label}
            </Button>
          )}
        </CopyButton>
      </Group>
      <ScrollArea.Autosize mah={260} maw="100%" type="auto" offsetScrollbars>
        <Code block role="region" aria-label={`${label.replace(/^Copy as /, '')} command`} tabIndex={0}
          style={{ whiteSpace: 'pre' }}>
          {command}
        </Code>
      </ScrollArea.Autosize>
    </Box>
  );
}
