import { useEffect, useRef } from 'react';
import { Link, useNavigate } from 'react-router';
import { useConfirmSignup } from '../api/signup';
import { LinkError } from '../components/LinkError';
import { MissingToken } from '../components/MissingToken';
import { NarrowPage } from '../components/NarrowPage';
import { useLinkToken } from '../link-token';

/** A sign-up's confirmation link: confirmed on opening, and the new owner is signed in. */
export function ConfirmEmailPage() {
  const token = useLinkToken();
  const navigate = useNavigate();
  const confirm = useConfirmSignup({ onSuccess: () => void navigate('/', { replace: true }) });
  // Once per page load: the link works once, and a second call would answer 401.
  const sent = useRef(false);
  const { mutate } = confirm;
  useEffect(() => {
    if (token === null || sent.current) return;
    sent.current = true;
    mutate(token);
  }, [token, mutate]);
  return (
    <NarrowPage title="Confirm your email address">
      {token === null && <MissingToken what="confirmation" />}
      {confirm.isPending && <p role="status">Confirming your address…</p>}
      <LinkError
        error={confirm.error}
        explain={{
          401: (
            <>
              This confirmation link cannot be used: it was used already or it expired (after 24 hours). If you confirmed your address
              before, <Link to="/sign-in">sign in</Link>.
            </>
          ),
          404: <>This Gatehouse takes no sign-ups, so there is nothing to confirm.</>,
        }}
      />
      <p>
        <Link to="/sign-in">Go to sign-in</Link>
      </p>
    </NarrowPage>
  );
}
