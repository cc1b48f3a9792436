/**
 * The web UI's pure helpers of sign-in and the profile: where a sign-in leads (never off the
 * site), a session's User-Agent as a person reads it, the time zones offered, and a validation
 * problem's field errors in the person's words.
 */
import { afterSignIn, safeNext, ssoLoginUrl } from '../../web/src/features/auth/utils/next.js';
import { fieldMessages } from '../../web/src/features/auth/utils/fields.js';
import { describeUserAgent } from '../../web/src/features/profile/utils/userAgent.js';
import { timeZoneOptions } from '../../web/src/features/profile/utils/timezones.js';

describe('safeNext', () => {
  it('keeps paths of this app, with their query and fragment', () => {
    expect(safeNext('/runs?status=failed#top')).toBe('/runs?status=failed#top');
  });

  it('turns anything that could leave the site into the home page', () => {
    for (const next of [null, undefined, '', 'https://evil.example', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', 'runs']) {
      expect(safeNext(next)).toBe('/');
    }
  });
});

describe('afterSignIn', () => {
  const plain = { user: { must_change_password: false } };

  it('goes where the person was headed', () => {
    expect(afterSignIn(plain, '/reports/1')).toBe('/reports/1');
    expect(afterSignIn(plain, null)).toBe('/');
  });

  it('passes through enrolling a second factor, then on', () => {
    expect(afterSignIn({ ...plain, must_enrol_second_factor: true }, '/reports/1')).toBe('/enrol-second-factor?next=%2Freports%2F1');
    expect(afterSignIn({ ...plain, must_enrol_second_factor: true }, null)).toBe('/enrol-second-factor');
  });

  it('asks for a new password first, then the second factor, then on', () => {
    const target = afterSignIn({ user: { must_change_password: true }, must_enrol_second_factor: true }, '/runs');
    expect(target).toBe(`/change-password?next=${encodeURIComponent('/enrol-second-factor?next=%2Fruns')}`);
    const inner = new URLSearchParams(target.split('?')[1]).get('next');
    expect(inner).toBe('/enrol-second-factor?next=%2Fruns');
    expect(new URLSearchParams(inner!.split('?')[1]).get('next')).toBe('/runs');
  });

  it('never leads off the site', () => {
    expect(afterSignIn({ ...plain, must_enrol_second_factor: true }, '//evil.example')).toBe('/enrol-second-factor');
  });
});

describe('ssoLoginUrl', () => {
  it('starts the flow with a return path of this app only', () => {
    expect(ssoLoginUrl('/runs?status=failed')).toBe('/api/v1/auth/oidc/login?return_to=%2Fruns%3Fstatus%3Dfailed');
    expect(ssoLoginUrl('https://evil.example')).toBe('/api/v1/auth/oidc/login?return_to=%2F');
  });
});

describe('describeUserAgent', () => {
  it.each([
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0', 'Firefox 128', 'Windows'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36', 'Chrome 156', 'Linux'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15', 'Safari 17', 'macOS'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', 'Safari 17', 'iPhone'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36 Edg/140.0.0.0', 'Edge 140', 'Windows'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Mobile Safari/537.36', 'Chrome 140', 'Android'],
  ])('%s', (ua, app, system) => {
    expect(describeUserAgent(ua)).toEqual({ app, system });
  });

  it('names other programs by their first product token, and nothing by nothing', () => {
    expect(describeUserAgent('curl/8.5.0')).toEqual({ app: 'curl/8.5.0', system: null });
    expect(describeUserAgent('herald-sdk/0.1.0 node')).toEqual({ app: 'herald-sdk/0.1.0', system: null });
    expect(describeUserAgent(null)).toBeNull();
    expect(describeUserAgent('  ')).toBeNull();
  });
});

describe('timeZoneOptions', () => {
  it('lists UTC first, then the IANA zones in order, with the current one even when unknown here', () => {
    const zones = timeZoneOptions('Mars/Olympus_Mons');
    expect(zones[0]).toBe('UTC');
    expect(zones).toContain('Europe/Berlin');
    expect(zones).toContain('America/New_York');
    expect(zones).toContain('Mars/Olympus_Mons');
    expect(new Set(zones).size).toBe(zones.length);
    const rest = zones.slice(1);
    expect(rest).toEqual([...rest].sort((a, b) => a.localeCompare(b)));
  });
});

describe('fieldMessages', () => {
  const texts: Record<string, string> = {
    'auth.field.current_password.validation.invalid': 'This is not your current password.',
    'auth.field.validation.password_too_common': 'Too common.',
  };
  const t = (key: string) => texts[key] ?? key;

  it('prefers the text for the field and code, then for the code, then the server\'s message', () => {
    expect(fieldMessages([
      { field: 'current_password', code: 'validation.invalid', message: 'is not your current password' },
      { field: 'new_password', code: 'validation.password_too_common' },
      { field: 'name', code: 'validation.unique', message: 'is taken' },
      { field: 'other', code: 'validation.odd' },
    ], t)).toEqual({
      current_password: 'This is not your current password.',
      new_password: 'Too common.',
      name: 'is taken',
      other: 'validation.odd',
    });
  });

  it('keeps the first error of a field', () => {
    expect(fieldMessages([{ field: 'name', code: 'a', message: 'first' }, { field: 'name', code: 'b', message: 'second' }], t)).toEqual({ name: 'first' });
  });
});
