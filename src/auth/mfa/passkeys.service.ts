import { Inject, Injectable } from '@nestjs/common';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { AuditService } from '../../audit/audit.service';
import { CacheInvalidation } from '../../cache/invalidation.service';
import type { Actor, RequestSource } from '../../common/current-principal.decorator';
import { AppError } from '../../common/errors/app-error';
import { CHALLENGE } from '../../common/errors/challenges';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import type { TokenResponseDto } from '../../credentials/dto/login.dto';
import type { Passkey } from '../../generated/prisma/client';
import { PrismaService } from '../../prisma/prisma.service';
import { SignInService } from '../sign-in.service';
import type { PasskeyDto } from './dto/passkey.dto';
import { MfaService } from './mfa.service';

const CEREMONY_TTL_MS = 5 * 60_000;

/**
 * @simplewebauthn/server, loaded by the first passkey ceremony rather than at start: with its ASN.1
 * and CBOR libraries it holds RSS that a Gatehouse whose people use no passkey never needs.
 */
let webauthn: Promise<typeof import('@simplewebauthn/server')> | undefined;
const simpleWebAuthn = () => (webauthn ??= import('@simplewebauthn/server'));

const RP_NAME = 'Gatehouse';

const toPasskeyDto = (p: Passkey): PasskeyDto => ({
  id: p.id,
  name: p.name,
  deviceType: p.deviceType,
  backedUp: p.backedUp,
  createdAt: p.createdAt.toISOString(),
  lastUsedAt: p.lastUsedAt?.toISOString() ?? null,
});

/** The challenge a WebAuthn response answers, as its client data carries it (verified by the library after). */
function challengeOf(response: { response?: { clientDataJSON?: unknown } }): string | undefined {
  const clientData = response.response?.clientDataJSON;
  if (typeof clientData !== 'string' || clientData.length > 4096) return undefined;
  try {
    const { challenge } = JSON.parse(Buffer.from(clientData, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof challenge === 'string' && challenge.length <= 200 ? challenge : undefined;
  } catch {
    return undefined;
  }
}

const notAccepted = () => new AppError('invalid_credentials', 'The passkey was not accepted: try again.').withChallenge(CHALLENGE.bearer);
const badRegistration = (message: string) => new AppError('validation_failed', message, [{ field: 'response', message }]);

/**
 * Passkeys (WebAuthn) with @simplewebauthn/server: registered by a signed-in user, used as the
 * second step of a sign-in or alone (a discoverable passkey, passwordless). The relying party is
 * PUBLIC_URL's host; responses are accepted from Gatehouse's own origins (PUBLIC_URL,
 * DASHBOARD_ORIGINS). Each ceremony's challenge is stored for 5 minutes and accepted once.
 */
@Injectable()
export class PasskeysService {
  private readonly rpID: string;
  private readonly origins: string[];

  constructor(
    private readonly prisma: PrismaService,
    private readonly mfa: MfaService,
    private readonly signIn: SignInService,
    private readonly audit: AuditService,
    private readonly invalidation: CacheInvalidation,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.rpID = new URL(config.mail.publicUrl).hostname;
    this.origins = [...config.serviceOrigins];
  }

  async list(actor: Actor): Promise<PasskeyDto[]> {
    const passkeys = await this.prisma.passkey.findMany({ where: { userId: actor.userId }, orderBy: { createdAt: 'asc' } });
    return passkeys.map(toPasskeyDto);
  }

  async registrationOptions(actor: Actor): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = await this.prisma.passkey.findMany({
      where: { userId: actor.userId },
      select: { credentialId: true, transports: true },
    });
    const { generateRegistrationOptions } = await simpleWebAuthn();
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: this.rpID,
      userName: actor.email,
      userID: new TextEncoder().encode(actor.userId),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    await this.remember(options.challenge, 'registration', actor.userId);
    return options;
  }

  async register(actor: Actor, response: Record<string, unknown>, name?: string): Promise<PasskeyDto> {
    const challenge = challengeOf(response);
    if (challenge === undefined || !(await this.claim(challenge, 'registration', actor.userId)))
      throw badRegistration('This registration is unknown, expired or done already: ask for new options.');
    const { verifyRegistrationResponse } = await simpleWebAuthn();
    const verification = await verifyRegistrationResponse({
      response: response as unknown as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: this.origins,
      expectedRPID: this.rpID,
      requireUserVerification: false,
    }).catch((err: Error) => {
      throw badRegistration(`The passkey was not registered: ${err.message}`);
    });
    if (!verification.verified) throw badRegistration('The passkey was not registered: its response does not verify.');
    const { credential, credentialDeviceType, credentialBackedUp } = verification.registrationInfo;
    const passkey = await this.prisma
      .$transaction(async (tx) => {
        const count = await tx.passkey.count({ where: { userId: actor.userId } });
        const created = await tx.passkey.create({
          data: {
            userId: actor.userId,
            credentialId: credential.id,
            publicKey: Buffer.from(credential.publicKey),
            counter: BigInt(credential.counter),
            transports: credential.transports ?? [],
            deviceType: credentialDeviceType,
            backedUp: credentialBackedUp,
            name: name ?? `Passkey ${count + 1}`,
          },
        });
        await this.audit.recordBy(
          tx,
          actor,
          'auth.passkey_added',
          { type: 'user', id: actor.userId },
          { passkeyId: created.id, name: created.name },
        );
        return created;
      })
      .catch((err: { code?: string }) => {
        if (err.code === 'P2002') throw new AppError('conflict', 'This passkey is registered already.');
        throw err;
      });
    this.invalidation.invalidate('user', actor.userId);
    return toPasskeyDto(passkey);
  }

  async rename(actor: Actor, id: string, name: string): Promise<PasskeyDto> {
    const { count } = await this.prisma.passkey.updateMany({ where: { id, userId: actor.userId }, data: { name } });
    if (count === 0) throw new AppError('not_found', 'No such passkey.');
    return toPasskeyDto(await this.prisma.passkey.findUniqueOrThrow({ where: { id } }));
  }

  /** Removes one (with the password); the last second factor gone, the recovery codes go too. */
  async remove(actor: Actor, id: string, password: string): Promise<void> {
    await this.mfa.confirmPassword(actor, password);
    await this.prisma.$transaction(async (tx) => {
      const removed = await tx.passkey.deleteMany({ where: { id, userId: actor.userId } });
      if (removed.count === 0) throw new AppError('not_found', 'No such passkey.');
      const left = await tx.passkey.count({ where: { userId: actor.userId } });
      const totp = await tx.user.count({ where: { id: actor.userId, totpConfirmedAt: { not: null } } });
      if (left === 0 && totp === 0) await tx.recoveryCode.deleteMany({ where: { userId: actor.userId } });
      await this.audit.recordBy(tx, actor, 'auth.passkey_removed', { type: 'user', id: actor.userId }, { passkeyId: id });
    });
    this.invalidation.invalidate('user', actor.userId);
  }

  /** Options for signing in: the step's user's passkeys with an mfaToken, any discoverable one without. */
  async authenticationOptions(mfaToken?: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    let userId: string | null = null;
    let allowCredentials: Array<{ id: string; transports: string[] }> | undefined;
    if (mfaToken !== undefined) {
      ({ id: userId } = (await this.mfa.userOfStep(mfaToken)).user);
      const passkeys = await this.prisma.passkey.findMany({ where: { userId }, select: { credentialId: true, transports: true } });
      allowCredentials = passkeys.map((p) => ({ id: p.credentialId, transports: p.transports }));
    }
    const { generateAuthenticationOptions } = await simpleWebAuthn();
    const options = await generateAuthenticationOptions({
      rpID: this.rpID,
      userVerification: mfaToken === undefined ? 'required' : 'preferred',
      ...(allowCredentials === undefined ? {} : { allowCredentials }),
    });
    await this.remember(options.challenge, 'authentication', userId);
    return options;
  }

  /**
   * A sign-in with a passkey: the second step (with its mfaToken, for that user's passkeys only), or
   * alone with user verification (the passkey is then both factors: something held, and a PIN or biometric).
   */
  async signInWith(response: Record<string, unknown>, client: RequestSource, mfaToken?: string): Promise<TokenResponseDto> {
    const step = mfaToken === undefined ? undefined : await this.mfa.userOfStep(mfaToken);
    const challenge = challengeOf(response);
    const credentialId = typeof response.id === 'string' ? response.id : undefined;
    const claimed = challenge !== undefined && (await this.claim(challenge, 'authentication', step?.user.id ?? null));
    const passkey =
      claimed && credentialId !== undefined
        ? await this.prisma.passkey.findUnique({
            where: { credentialId },
            include: { user: { select: { id: true, accountId: true, email: true, tokenVersion: true, emailConfirmedAt: true } } },
          })
        : null;
    const refuse = () =>
      step === undefined ? Promise.reject(notAccepted()) : this.mfa.failStep(step.stepId, step.user, client, 'passkey');
    if (passkey === null || (step !== undefined && passkey.userId !== step.user.id) || passkey.user.emailConfirmedAt === null)
      return refuse();
    const { verifyAuthenticationResponse } = await simpleWebAuthn();
    const verification = await verifyAuthenticationResponse({
      response: response as unknown as AuthenticationResponseJSON,
      expectedChallenge: challenge!,
      expectedOrigin: this.origins,
      expectedRPID: this.rpID,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: Number(passkey.counter),
        transports: passkey.transports,
      },
      requireUserVerification: step === undefined,
    }).catch(() => ({ verified: false as const, authenticationInfo: undefined }));
    if (!verification.verified) return refuse();
    await this.prisma.passkey.update({
      where: { id: passkey.id },
      data: { counter: BigInt(verification.authenticationInfo.newCounter), lastUsedAt: new Date() },
    });
    if (step !== undefined) return this.mfa.completeStep(step.stepId, step.user, client, 'passkey');
    return this.signIn.complete(passkey.user, client, 'passkey');
  }

  private async remember(challenge: string, purpose: 'registration' | 'authentication', userId: string | null): Promise<void> {
    const now = new Date();
    await this.prisma.webAuthnChallenge.deleteMany({ where: { expiresAt: { lte: now } } });
    await this.prisma.webAuthnChallenge.create({
      data: { challenge, purpose, userId, expiresAt: new Date(now.getTime() + CEREMONY_TTL_MS) },
    });
  }

  /** The ceremony's challenge, taken once while it lives, for the user it was made for. */
  private async claim(challenge: string, purpose: 'registration' | 'authentication', userId: string | null): Promise<boolean> {
    const { count } = await this.prisma.webAuthnChallenge.deleteMany({
      where: { challenge, purpose, userId, expiresAt: { gt: new Date() } },
    });
    return count === 1;
  }
}
