import { PageTitle } from '../components/Form';

export function AccountPage() {
  return <PageTitle>Account</PageTitle>;
}
