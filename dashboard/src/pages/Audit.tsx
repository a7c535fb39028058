import { PageTitle } from '../components/Form';

export function AuditPage() {
  return <PageTitle>Audit</PageTitle>;
}
