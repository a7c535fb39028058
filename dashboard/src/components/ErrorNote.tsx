import { ApiError } from '../api/errors';

/** An error for a person: the API's message, the wait on a 429, the field errors on a 400. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof ApiError ? error.describe() : 'Gatehouse could not be reached. Check the connection and try again.';
  return (
    <p className="error" role="alert">
      {text}
    </p>
  );
}
