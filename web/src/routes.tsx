// The route table: every page of the app, loaded on demand so the first page stays small.
import { lazy } from 'react';
import { createBrowserRouter } from 'react-router';
import { AppLayout } from './layout/AppLayout';
import { LoginPage } from './pages/auth/LoginPage';
import { SetupPasswordPage } from './pages/auth/SetupPasswordPage';

const DashboardPage = lazy(() => import('./pages/dashboard/DashboardPage'));
const ProjectsPage = lazy(() => import('./pages/projects/ProjectsPage'));
const ProjectPage = lazy(() => import('./pages/projects/ProjectPage'));
const LibraryPage = lazy(() => import('./pages/library/LibraryPage'));
const SchemaPage = lazy(() => import('./pages/library/SchemaPage'));
const ConstraintSetPage = lazy(() => import('./pages/library/ConstraintSetPage'));
const IntegrationsPage = lazy(() => import('./pages/integrations/IntegrationsPage'));
const IntegrationPage = lazy(() => import('./pages/integrations/IntegrationPage'));
const AnalyticsPage = lazy(() => import('./pages/analytics/AnalyticsPage'));
const SettingsPage = lazy(() => import('./pages/settings/SettingsPage'));
const AdminPage = lazy(() => import('./pages/admin/AdminPage'));
const DatasetPage = lazy(() => import('./pages/datasets/DatasetPage'));
const NotificationsPage = lazy(() => import('./pages/notifications/NotificationsPage'));
const NotFoundPage = lazy(() => import('./pages/NotFoundPage'));

export const router = createBrowserRouter([
  { path: '/login', element: <LoginPage /> },
  { path: '/setup-password', element: <SetupPasswordPage /> },
  {
    element: <AppLayout />,
    children: [
      { index: true, element: <DashboardPage /> },
      { path: 'projects', element: <ProjectsPage /> },
      { path: 'projects/:projectId', element: <ProjectPage /> },
      { path: 'library', element: <LibraryPage /> },
      { path: 'library/schemas/:schemaId', element: <SchemaPage /> },
      { path: 'library/constraints/new', element: <ConstraintSetPage /> },
      { path: 'library/constraints/:constraintId', element: <ConstraintSetPage /> },
      { path: 'integrations', element: <IntegrationsPage /> },
      { path: 'integrations/:integrationId', element: <IntegrationPage /> },
      { path: 'analytics', element: <AnalyticsPage /> },
      { path: 'settings', element: <SettingsPage /> },
      { path: 'settings/:tab', element: <SettingsPage /> },
      { path: 'admin', element: <AdminPage /> },
      { path: 'admin/:tab', element: <AdminPage /> },
      { path: 'datasets/:datasetId', element: <DatasetPage /> },
      { path: 'notifications', element: <NotificationsPage /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]);
