import { Link } from 'react-router';
import { NarrowPage } from '../components/NarrowPage';

export function NotFoundPage() {
  return (
    <NarrowPage title="Page not found">
      <p>
        There is no dashboard page here. <Link to="/">Go to the dashboard</Link>.
      </p>
    </NarrowPage>
  );
}
