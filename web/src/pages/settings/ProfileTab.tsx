// Profile: display name, theme (applied at once after saving), locale and the avatar.
import { Alert, Button, Group, Paper, Radio, Select, SimpleGrid, Stack, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { useMemo, useState } from 'react';
import { useMutation } from 'urql';
import { useSession } from '../../auth/SessionProvider';
import { graphql } from '../../gql';
import { AvatarSection } from './AvatarSection';
import { placeServerError } from './serverErrors';
import type { SettingsData } from './types';

const UpdateSettingsMutation = graphql(`
  mutation UpdateSettings($input: SettingsUpdateInput!) {
    update_settings(input: $input) { user_id display_name theme locale }
  }
`);

const THEMES = [
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
  { value: 'system', label: 'System' },
];

const LOCALES = ['en_US', 'en_GB', 'de_DE', 'fr_FR', 'es_ES', 'it_IT', 'nl_NL', 'pt_BR', 'pl_PL', 'sv_SE', 'ja_JP', 'ko_KR', 'zh_CN'];

function localeLabel(code: string): string {
  try {
    const name = new Intl.DisplayNames(['en'], { type: 'language' }).of(code.replace('_', '-'));
    return name ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

export function ProfileTab({ settings }: { settings: SettingsData }) {
  const session = useSession();
  const [state, update] = useMutation(UpdateSettingsMutation);
  const [general, setGeneral] = useState<string | null>(null);
  const form = useForm({
    initialValues: { display_name: settings.display_name ?? '', theme: settings.theme, locale: settings.locale },
  });
  const locales = useMemo(() => {
    const codes = LOCALES.includes(settings.locale) ? LOCALES : [settings.locale, ...LOCALES];
    return codes.map((code) => ({ value: code, label: localeLabel(code) }));
  }, [settings.locale]);

  const submit = form.onSubmit(async (values) => {
    setGeneral(null);
    const result = await update({ input: { display_name: values.display_name.trim(), theme: values.theme, locale: values.locale } });
    if (result.error) {
      const placed = placeServerError(result.error, { display_name: 'display_name', theme: 'theme', locale: 'locale' });
      form.setErrors(placed.byField);
      setGeneral(placed.general);
      return;
    }
    form.resetDirty();
    session.refresh(); // the theme is applied from the session's `me` (auth/ThemeFromSettings)
    notifications.show({ color: 'green', message: 'Your profile is saved.' });
  });

  return (
    <Stack gap="lg" maw={720}>
      <Paper withBorder p="md" radius="md">
        <form onSubmit={submit} noValidate aria-labelledby="profile-heading">
          <Stack>
            <Title order={2} size="h4" id="profile-heading">Profile</Title>
            {general && <Alert color="red" role="alert" title="Could not save the profile">{general}</Alert>}
            <TextInput label="Display name" description="Shown instead of your username" maxLength={100}
              autoComplete="name" {...form.getInputProps('display_name')} />
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <Radio.Group label="Theme" description="Applied as soon as you save" {...form.getInputProps('theme')}>
                <Group mt={8} gap="lg">
                  {THEMES.map((t) => <Radio key={t.value} value={t.value} label={t.label} />)}
                </Group>
              </Radio.Group>
              <Select label="Locale" description="Dates and numbers" data={locales} searchable allowDeselect={false}
                nothingFoundMessage="No such locale" {...form.getInputProps('locale')} />
            </SimpleGrid>
            <Group>
              <Button type="submit" loading={state.fetching}>Save profile</Button>
            </Group>
          </Stack>
        </form>
      </Paper>
      <AvatarSection username={settings.username} avatarUrl={settings.avatar_url ?? null} />
    </Stack>
  );
}
