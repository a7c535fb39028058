import { PageTitle } from '../components/Form';

export function ProfilePage() {
  return <PageTitle>Profile</PageTitle>;
}
