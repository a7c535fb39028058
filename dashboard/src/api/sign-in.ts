import type { components } from './schema';

/** A sign-in's answers: a token, or the second step it needs first (`mfaRequired`). */
export type TokenAnswer = components['schemas']['TokenResponseDto'];
export type SecondStep = components['schemas']['MfaRequiredDto'];
export type SecondFactorMethod = SecondStep['methods'][number];
export type LoginAnswer = TokenAnswer | SecondStep;

export const needsSecondStep = (answer: LoginAnswer): answer is SecondStep => 'mfaRequired' in answer && answer.mfaRequired;

export type MfaStatus = components['schemas']['MfaStatusDto'];
export type Passkey = components['schemas']['PasskeyDto'];
export type SignInSession = components['schemas']['SessionDto'];
