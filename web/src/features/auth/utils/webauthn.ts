/**
 * The browser's side of passkeys: the options the API hands out go to navigator.credentials
 * (through @simplewebauthn/browser, which turns the JSON options into buffers and the answer back
 * into the JSON form the API takes). A prompt the person closed reads as such, not as a fault.
 */
import {
  browserSupportsWebAuthn, startAuthentication, startRegistration, WebAuthnError,
  type PublicKeyCredentialCreationOptionsJSON, type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import type { Schemas } from '@herald/sdk';
import type { Translate } from '../../../i18n';

export type WebAuthnCredential = Schemas['WebAuthnCredential'];

export const passkeysSupported = (): boolean => browserSupportsWebAuthn();

/** Signs the API's options for navigator.credentials.get() with a passkey the browser holds. */
export async function signWithPasskey(options: Record<string, unknown>): Promise<WebAuthnCredential> {
  const answer = await startAuthentication({ optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON });
  return answer as unknown as WebAuthnCredential;
}

/** Makes a new passkey for the API's options for navigator.credentials.create(). */
export async function createPasskey(options: Record<string, unknown>): Promise<WebAuthnCredential> {
  const answer = await startRegistration({ optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON });
  return answer as unknown as WebAuthnCredential;
}

/** An error of a passkey prompt in the person's words; any other error is returned as it is. */
export function describePasskeyError(error: unknown, t: Translate): unknown {
  const name = error instanceof Error ? error.name : '';
  const code = error instanceof WebAuthnError ? error.code : undefined;
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return new Error(t('problem.passkey.already_registered'));
  if (code === 'ERROR_CEREMONY_ABORTED' || name === 'NotAllowedError' || name === 'AbortError') return new Error(t('auth.passkey.cancelled'));
  if (code === 'ERROR_INVALID_DOMAIN' || code === 'ERROR_INVALID_RP_ID' || name === 'SecurityError') return new Error(t('problem.passkey.unavailable'));
  return error;
}
