// The avatar: the current image and an upload (PNG, JPEG or WebP up to 2 MiB, sent base64; the
// server redraws it as a 256x256 PNG).
import { Alert, Avatar, Button, FileButton, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconUpload } from '@tabler/icons-react';
import { useRef, useState } from 'react';
import { useMutation } from 'urql';
import { errorDetail } from '../../api/errors';
import { graphql } from '../../gql';

const UploadAvatarMutation = graphql(`
  mutation UploadAvatar($input: AvatarUploadInput!) {
    upload_avatar(input: $input) { user_id avatar_url }
  }
`);

const ACCEPTED = ['image/png', 'image/jpeg', 'image/webp'];
const MAX_BYTES = 2 * 1024 * 1024;

function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1)); // drop the "data:image/png;base64," head
    };
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsDataURL(file);
  });
}

export function AvatarSection({ username, avatarUrl }: { username: string; avatarUrl: string | null }) {
  const [state, upload] = useMutation(UploadAvatarMutation);
  const [problem, setProblem] = useState<string | null>(null);
  const resetRef = useRef<() => void>(null);

  const choose = async (file: File | null) => {
    resetRef.current?.(); // the same file may be chosen again
    if (!file) return;
    setProblem(null);
    if (!ACCEPTED.includes(file.type)) {
      setProblem('Choose a PNG, JPEG or WebP image.');
      return;
    }
    if (file.size > MAX_BYTES) {
      setProblem('The image is larger than 2 MiB; choose a smaller one.');
      return;
    }
    let content: string;
    try {
      content = await readBase64(file);
    } catch {
      setProblem('The file could not be read.');
      return;
    }
    const result = await upload({ input: { content_base64: content, filename: file.name } });
    if (result.error) setProblem(errorDetail(result.error));
    else notifications.show({ color: 'green', message: 'Your avatar is updated.' });
  };

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="avatar-heading">
      <Stack>
        <Title order={2} size="h4" id="avatar-heading">Avatar</Title>
        <Group align="center" gap="lg">
          {avatarUrl ? (
            <Avatar src={avatarUrl} alt="Your avatar" size={96} radius={96} />
          ) : (
            <Avatar size={96} radius={96} color="blue" aria-hidden>{username.slice(0, 1).toUpperCase()}</Avatar>
          )}
          <Stack gap={6}>
            {!avatarUrl && <Text size="sm">You have no avatar yet.</Text>}
            <FileButton onChange={choose} accept={ACCEPTED.join(',')} resetRef={resetRef}>
              {(props) => (
                <Button {...props} variant="default" loading={state.fetching} leftSection={<IconUpload size={16} aria-hidden />}>
                  Upload avatar
                </Button>
              )}
            </FileButton>
            <Text size="xs" c="dimmed">PNG, JPEG or WebP, up to 2 MiB; it is cropped to a square.</Text>
          </Stack>
        </Group>
        {problem && <Alert color="red" role="alert" title="Could not upload the avatar">{problem}</Alert>}
      </Stack>
    </Paper>
  );
}
