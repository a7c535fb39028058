import { PageTitle } from '../components/Form';

export function TeamPage() {
  return <PageTitle>Team</PageTitle>;
}
