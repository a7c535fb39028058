import { PageTitle } from '../components/Form';

export function ForgotPasswordPage() {
  return <PageTitle>Forgot password</PageTitle>;
}
export function ResetPasswordPage() {
  return <PageTitle>Reset password</PageTitle>;
}
export function AcceptInvitationPage() {
  return <PageTitle>Accept invitation</PageTitle>;
}
export function ConfirmEmailPage() {
  return <PageTitle>Confirm email</PageTitle>;
}
