/** A link page opened without its token (`what`: invitation, reset, confirmation). */
export function MissingToken({ what }: { what: string }) {
  return (
    <p className="error" role="alert">
      This address has no {what} token in it. Open the link from the e-mail (or the one you were given) again, whole.
    </p>
  );
}
