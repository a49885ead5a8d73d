// Notification switches: per event, in-app and webhook (default on).
import { Alert, Button, Group, Paper, Stack, Switch, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useMutation } from 'urql';
import { graphql } from '../../gql';
import { placeServerError } from './serverErrors';
import type { SettingsData } from './types';

const UpdatePreferencesMutation = graphql(`
  mutation UpdateNotificationPreferences($input: NotificationPrefsInput!) {
    update_notification_preferences(input: $input) { user_id notifications }
  }
`);

const EVENTS = [
  { event: 'dataset.completed', help: 'A dataset finished generating' },
  { event: 'dataset.failed', help: 'A dataset failed' },
  { event: 'schema.uploaded', help: 'A schema was added to the library' },
  { event: 'project.created', help: 'A project was created' },
] as const;

const CHANNELS = [
  { key: 'in_app', label: 'In-app' },
  { key: 'webhook', label: 'Webhook' },
] as const;

type Channel = (typeof CHANNELS)[number]['key'];
type Prefs = Record<string, Record<Channel, boolean>>;

function readPrefs(raw: unknown): Prefs {
  const source = raw && typeof raw === 'object' ? (raw as Record<string, Record<string, unknown>>) : {};
  const prefs: Prefs = {};
  for (const { event } of EVENTS) {
    const row = source[event] ?? {};
    prefs[event] = { in_app: row.in_app !== false, webhook: row.webhook !== false };
  }
  return prefs;
}

export function NotificationsTab({ settings }: { settings: SettingsData }) {
  const [state, save] = useMutation(UpdatePreferencesMutation);
  const [prefs, setPrefs] = useState<Prefs>(() => readPrefs(settings.notifications));
  const [problem, setProblem] = useState<string | null>(null);

  const toggle = (event: string, channel: Channel, value: boolean) =>
    setPrefs((current) => ({ ...current, [event]: { ...current[event]!, [channel]: value } }));

  const submit = async () => {
    setProblem(null);
    const result = await save({ input: { preferences: prefs } });
    if (result.error) setProblem(placeServerError(result.error, {}).general);
    else notifications.show({ color: 'green', message: 'Your notification settings are saved.' });
  };

  return (
    <Paper withBorder p="md" radius="md" maw={720} component="section" aria-labelledby="notifications-heading">
      <Stack>
        <div>
          <Title order={2} size="h4" id="notifications-heading">Notifications</Title>
          <Text size="sm" c="dimmed">
            Choose what reaches you in the app (the bell) and through your team's webhook integrations.
          </Text>
        </div>
        {problem && <Alert color="red" role="alert" title="Could not save the notification settings">{problem}</Alert>}
        <Table.ScrollContainer minWidth={300}>
          <Table verticalSpacing="sm" horizontalSpacing="xs" aria-labelledby="notifications-heading">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Event</Table.Th>
                {CHANNELS.map((c) => <Table.Th key={c.key} scope="col" ta="center">{c.label}</Table.Th>)}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {EVENTS.map(({ event, help }) => {
                const words = event.replace('.', ' ');
                return (
                  <Table.Tr key={event}>
                    <Table.Th scope="row" fw={400}>
                      <Text size="sm" ff="monospace">{event}</Text>
                      <Text size="xs" c="dimmed">{help}</Text>
                    </Table.Th>
                    {CHANNELS.map((c) => (
                      <Table.Td key={c.key}>
                        <Group justify="center">
                          <Switch aria-label={`${c.label} for ${words}`} checked={prefs[event]![c.key]}
                            onChange={(e) => toggle(event, c.key, e.currentTarget.checked)} />
                        </Group>
                      </Table.Td>
                    ))}
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <Group>
          <Button onClick={submit} loading={state.fetching}>Save notification settings</Button>
        </Group>
      </Stack>
    </Paper>
  );
}
