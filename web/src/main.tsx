import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import '@mantine/dropzone/styles.css';
import '@mantine/spotlight/styles.css';
import '@mantine/charts/styles.css';
import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { Provider as GraphQLProvider } from 'urql';
import { createClient } from './api/client';
import { SessionProvider } from './auth/SessionProvider';
import { ThemeFromSettings } from './auth/ThemeFromSettings';
import { router } from './routes';
import { cssVariablesResolver, theme } from './theme';

const client = createClient();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="auto">
      <GraphQLProvider value={client}>
        <SessionProvider>
          <ThemeFromSettings />
          <ModalsProvider>
            <Notifications position="top-right" />
            <RouterProvider router={router} />
          </ModalsProvider>
        </SessionProvider>
      </GraphQLProvider>
    </MantineProvider>
  </StrictMode>,
);
