import { ReactNode } from 'react';
import { ApiError } from '../api/errors';
import { ErrorNote } from './ErrorNote';

/** The API's error, or for the statuses a page expects, what it means in that page's words. */
export function LinkError({ error, explain }: { error: unknown; explain: Partial<Record<number, ReactNode>> }) {
  const words = error instanceof ApiError ? explain[error.status] : undefined;
  if (!words) return <ErrorNote error={error} />;
  return (
    <p className="error" role="alert">
      {words}
    </p>
  );
}
