import { Link } from 'react-router';
import { PageTitle } from '../components/Form';

export function NotFoundPage() {
  return (
    <main className="narrow">
      <PageTitle>Page not found</PageTitle>
      <p>
        There is no dashboard page here. <Link to="/">Go to the dashboard</Link>.
      </p>
    </main>
  );
}
