// Every attempt of one delivery. The receiver's answer is untrusted: it is shown as text (React
// escapes it), cut to the first 1 KB the server keeps, never rendered as HTML.
import { Badge, Code, Group, Stack, Text } from '@mantine/core';
import { formatWhen } from '../../components/format';

const ANSWER_LIMIT = 1024;

interface Attempt {
  attempt: number;
  at: string;
  status_code?: number | null;
  error?: string | null;
  response_body?: string | null;
  duration_ms: number;
}

interface Props {
  attempts: Attempt[];
  nextAttemptAt?: string | null;
  status: string;
}

export function AttemptList({ attempts, nextAttemptAt, status }: Props) {
  return (
    <Stack gap="sm" py={4}>
      {attempts.length === 0 && <Text size="sm" c="dimmed">No attempt yet: the dispatcher sends it within seconds.</Text>}
      {attempts.map((a) => {
        const ok = a.status_code != null && a.status_code >= 200 && a.status_code < 300;
        return (
          <Stack key={a.attempt} gap={4}>
            <Group gap="xs">
              <Text size="sm" fw={600}>Attempt {a.attempt}</Text>
              <Text size="sm" c="dimmed">{formatWhen(a.at)} · {a.duration_ms} ms</Text>
              {a.status_code != null && <Badge color={ok ? 'green' : 'red'} variant="light">HTTP {a.status_code}</Badge>}
            </Group>
            {a.error && <Text size="sm" c="red.9" style={{ overflowWrap: 'anywhere' }}>{a.error}</Text>}
            {a.response_body ? (
              <>
                <Text size="xs" c="dimmed">Answer (first 1 KB)</Text>
                <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                  {a.response_body.slice(0, ANSWER_LIMIT)}
                </Code>
              </>
            ) : (
              <Text size="xs" c="dimmed">No answer body.</Text>
            )}
          </Stack>
        );
      })}
      {status === 'pending' && nextAttemptAt && (
        <Text size="sm" c="dimmed">Next attempt {formatWhen(nextAttemptAt)}.</Text>
      )}
    </Stack>
  );
}
