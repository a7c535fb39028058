/**
 * The pages people reach from an e-mail or a passed-on link carry a one-time token in the fragment
 * (`#token=…`, which browsers never send to a server): read once and then taken out of the address
 * bar, so it stays out of history, bookmarks and screenshots.
 */
import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';

/** The token of `#token=…`, read on the first render; the fragment then leaves the address bar. */
export function useLinkToken(): string | null {
  const location = useLocation();
  const navigate = useNavigate();
  const inHash = new URLSearchParams(location.hash.slice(1)).get('token') || null;
  const [token, setToken] = useState(inHash);
  // A link opened in a tab already on this page changes only the fragment: the page stays, the token is new.
  if (inHash !== null && inHash !== token) setToken(inHash);
  useEffect(() => {
    // react-router's replace is history.replaceState, and keeps the router's own location in step.
    if (location.hash) void navigate({ pathname: location.pathname, search: location.search }, { replace: true });
  }, [location.hash, location.pathname, location.search, navigate]);
  return token;
}
