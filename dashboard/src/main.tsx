import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
// react-router/dom's provider: a navigation asked with `flushSync` (a choice kept in the address) shows at once.
import { RouterProvider } from 'react-router/dom';
import { ApiError } from './api/errors';
import { session } from './api/session';
import { router } from './routes';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      // A 4xx will answer the same again; only a network failure or a 5xx is worth one more try.
      retry: (count, error) => count < 1 && !(error instanceof ApiError && error.status < 500),
    },
  },
  queryCache: new QueryCache(),
  mutationCache: new MutationCache(),
});

// Signed out (here, in another tab's sign-out, or by an ended session): nothing cached survives.
session.subscribe(() => {
  if (session.get() === null) queryClient.clear();
});
// A refused token replaced silently: what failed with it is asked again.
session.onRecovered(() => void queryClient.invalidateQueries());

// The browser's session first, so a deep link in a new tab opens signed in rather than on sign-in.
void session.resume().finally(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </StrictMode>,
  ),
);
