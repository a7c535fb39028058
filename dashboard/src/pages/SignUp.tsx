import { PageTitle } from '../components/Form';

export function SignUpPage() {
  return <PageTitle>SignUp</PageTitle>;
}
