/** Authenticator-app helpers for tests: the code an app shows at a moment, and enrolment through the API. */
import { generate } from 'otplib';
import type { Clock } from '../../src/core/clock.js';
import type { SessionClient } from './identity.js';

/** The six digits an authenticator app shows for `secret` at the clock's time (or `offsetSteps` steps away). */
export function totpCode(secret: string, clock: Clock, offsetSteps = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor(clock.now().getTime() / 1000) + offsetSteps * 30 });
}

/** Sets up and confirms the authenticator app of a session's user. */
export async function enrolTotp(client: SessionClient, clock: Clock): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await client.post('/api/v1/me/2fa/totp/setup');
  if (setup.status !== 200) throw new Error(`setup answered ${setup.status}: ${setup.text}`);
  const secret = setup.body.secret as string;
  const confirm = await client.post('/api/v1/me/2fa/totp/confirm').send({ code: await totpCode(secret, clock) });
  if (confirm.status !== 200) throw new Error(`confirm answered ${confirm.status}: ${confirm.text}`);
  return { secret, recoveryCodes: confirm.body.recovery_codes as string[] };
}
