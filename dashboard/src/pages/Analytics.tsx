import { PageTitle } from '../components/Form';

export function AnalyticsPage() {
  return <PageTitle>Analytics</PageTitle>;
}
