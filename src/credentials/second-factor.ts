/**
 * What a user row must select to tell whether the person has a second factor (an authenticator app
 * confirmed, or a passkey), and the test itself: the team list, the account's requirement and every
 * request's principal ask the same question.
 */
export const SECOND_FACTOR_SELECT = { totpConfirmedAt: true, _count: { select: { passkeys: true } } } as const;

export const hasSecondFactor = (user: { totpConfirmedAt: Date | null; _count: { passkeys: number } }): boolean =>
  user.totpConfirmedAt !== null || user._count.passkeys > 0;
