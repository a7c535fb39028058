import { createBrowserRouter, Navigate } from 'react-router';
import { Layout, useMeContext } from './components/Layout';
import { RequireSession } from './components/RequireSession';
import { can } from './roles';
import { AcceptInvitationPage } from './pages/AcceptInvitation';
import { AccountPage } from './pages/Account';
import { AnalyticsPage } from './pages/Analytics';
import { AuditPage } from './pages/Audit';
import { ConfirmEmailPage } from './pages/ConfirmEmail';
import { ForgotPasswordPage } from './pages/ForgotPassword';
import { KeysPage } from './pages/Keys';
import { NotFoundPage } from './pages/NotFound';
import { ProfilePage } from './pages/Profile';
import { ResetPasswordPage } from './pages/ResetPassword';
import { SignInPage } from './pages/SignIn';
import { SignUpPage } from './pages/SignUp';
import { TeamPage } from './pages/Team';

/** Every path here is also in src/dashboard/dashboard-pages.ts, which serves index.html for it. */
export const router = createBrowserRouter([
  { path: '/sign-in', element: <SignInPage /> },
  { path: '/sign-up', element: <SignUpPage /> },
  { path: '/forgot-password', element: <ForgotPasswordPage /> },
  { path: '/reset-password', element: <ResetPasswordPage /> },
  { path: '/accept-invitation', element: <AcceptInvitationPage /> },
  { path: '/confirm-email', element: <ConfirmEmailPage /> },
  {
    element: <RequireSession />,
    children: [
      {
        element: <Layout />,
        children: [
          { path: '/', element: <Home /> },
          { path: '/keys', element: <KeysPage /> },
          { path: '/team', element: <TeamPage /> },
          { path: '/analytics', element: <AnalyticsPage /> },
          { path: '/audit', element: <AuditPage /> },
          { path: '/settings', element: <AccountPage /> },
          { path: '/profile', element: <ProfilePage /> },
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
