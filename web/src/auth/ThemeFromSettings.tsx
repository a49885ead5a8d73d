// Applies the user's theme setting (light, dark, system) to Mantine's color scheme.
import { useMantineColorScheme } from '@mantine/core';
import { useEffect } from 'react';
import { useSession } from './SessionProvider';

export function ThemeFromSettings() {
  const { user } = useSession();
  const { setColorScheme } = useMantineColorScheme();
  useEffect(() => {
    const theme = user?.theme;
    if (theme === 'light' || theme === 'dark') setColorScheme(theme);
    else if (theme === 'system') setColorScheme('auto');
  }, [user?.theme, setColorScheme]);
  return null;
}
