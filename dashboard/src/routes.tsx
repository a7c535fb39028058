import { createBrowserRouter, Navigate } from 'react-router';
import { Layout, useMeContext } from './components/Layout';
import { RequireSession } from './components/RequireSession';
import { can } from './roles';
import { AcceptInvitationPage } from './pages/AcceptInvitation';
import { AccountPage } from './pages/Account';
import { AuditPage } from './pages/Audit';
import { ConfirmEmailPage } from './pages/ConfirmEmail';
import { ForgotPasswordPage } from './pages/ForgotPassword';
import { KeysPage } from './pages/Keys';
import { NotFoundPage } from './pages/NotFound';
import { ProfilePage } from './pages/Profile';
import { ResetPasswordPage } from './pages/ResetPassword';
import { SecurityPage } from './pages/Security';
import { SignInPage } from './pages/SignIn';
import { SignUpPage } from './pages/SignUp';
import { TeamPage } from './pages/Team';
import { WebhooksPage } from './pages/Webhooks';

/**
 * Every path here is also in src/dashboard/dashboard-pages.ts, which serves index.html for it; paths
 * match case-sensitively, as the server's do, so /KEYS is not found in either.
 */
export const router = createBrowserRouter([
  { path: '/sign-in', caseSensitive: true, element: <SignInPage /> },
  { path: '/sign-up', caseSensitive: true, element: <SignUpPage /> },
  { path: '/forgot-password', caseSensitive: true, element: <ForgotPasswordPage /> },
  { path: '/reset-password', caseSensitive: true, element: <ResetPasswordPage /> },
  { path: '/accept-invitation', caseSensitive: true, element: <AcceptInvitationPage /> },
  { path: '/confirm-email', caseSensitive: true, element: <ConfirmEmailPage /> },
  {
    element: <RequireSession />,
    children: [
      {
        element: <Layout />,
        children: [
          { path: '/', caseSensitive: true, element: <Home /> },
          { path: '/keys', caseSensitive: true, element: <KeysPage /> },
          { path: '/webhooks', caseSensitive: true, element: <WebhooksPage /> },
          { path: '/team', caseSensitive: true, element: <TeamPage /> },
          // Analytics draws with uPlot: the page and uPlot are their own chunk, loaded when opened.
          {
            path: '/analytics',
            caseSensitive: true,
            lazy: async () => ({ Component: (await import('./pages/Analytics')).AnalyticsPage }),
            hydrateFallbackElement: <p role="status">Loading analytics…</p>,
          },
          { path: '/audit', caseSensitive: true, element: <AuditPage /> },
          { path: '/settings', caseSensitive: true, element: <AccountPage /> },
          { path: '/profile', caseSensitive: true, element: <ProfilePage /> },
          { path: '/security', caseSensitive: true, element: <SecurityPage /> },
          // The guide (docs/PROTECT-A-FORM.md) is its own chunk, loaded when opened: not in the first load.
          // Opened by its address, the page shows its frame and this line until the chunk is in (without
          // one, React Router shows a blank page and warns in the console).
          {
            path: '/guide',
            caseSensitive: true,
            lazy: async () => ({ Component: (await import('./pages/Guide')).GuidePage }),
            hydrateFallbackElement: <p role="status">Loading the guide…</p>,
          },
        ],
      },
    ],
  },
  { path: '*', element: <NotFoundPage /> },
]);

/** The first page: the keys for those who manage them, the figures for everyone else. */
function Home() {
  const me = useMeContext();
  return <Navigate to={can.manageKeys(me.role) ? '/keys' : '/analytics'} replace />;
}
