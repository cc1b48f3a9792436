/**
 * The pieces the sign-in throttle keys on: client addresses (IPv6 by /64), one spelling of an
 * email address, and device tokens that expire and are bound to the password.
 */
import { addressKey } from '../../src/infra/ratelimit/attempt-guard.js';
import { deviceCookieName, deviceTokenFor, DEVICE_TOKEN_MAX_AGE_SECONDS, isDeviceTokenFor, normalizeEmail } from '../../src/domain/identity/tokens.js';

describe('addressKey', () => {
  it('keeps IPv4 addresses whole, also when mapped into IPv6', () => {
    expect(addressKey('192.0.2.10')).toBe('192.0.2.10');
    expect(addressKey('::ffff:192.0.2.10')).toBe('192.0.2.10');
    expect(addressKey('192.0.2.11')).not.toBe(addressKey('192.0.2.10'));
  });

  it('groups IPv6 addresses by their /64 network, whatever their spelling', () => {
    const key = addressKey('2001:db8:1:2::1');
    expect(key).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:eeee:dddd:cccc')).toBe(key);
    expect(addressKey('2001:DB8:1:2:0:0:0:9')).toBe(key);
    expect(addressKey('2001:db8:1:3::1')).not.toBe(key);
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(addressKey('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:0::/64');
    expect(addressKey('2001:db8:1:2:3:4:192.0.2.1')).toBe(key);
  });
});

describe('normalizeEmail and the device cookie name', () => {
  it('gives every spelling of an address one form and one cookie', () => {
    expect(normalizeEmail('  Ann.Lee@Example.COM ')).toBe('ann.lee@example.com');
    expect(deviceCookieName('  Ann.Lee@Example.COM ')).toBe(deviceCookieName('ann.lee@example.com'));
    expect(deviceCookieName('ann.lee@example.com')).toMatch(/^svc_device_[A-Za-z0-9_-]{22}$/);
    expect(deviceCookieName('bob@example.com')).not.toBe(deviceCookieName('ann.lee@example.com'));
  });
});

describe('device tokens', () => {
  const key = Buffer.alloc(32, 7);
  const user = { id: '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f70', passwordChangedAt: new Date('2026-01-01T00:00:00Z') };
  const now = new Date('2026-06-01T00:00:00Z');

  it('prove an earlier sign-in of the same user with the same password', () => {
    expect(isDeviceTokenFor(key, deviceTokenFor(key, user, now), user, now)).toBe(true);
  });

  it('stop proving anything after a password change, for another user, or under another key', () => {
    const token = deviceTokenFor(key, user, now);
    expect(isDeviceTokenFor(key, token, { ...user, passwordChangedAt: new Date('2026-05-31T00:00:00Z') }, now)).toBe(false);
    expect(isDeviceTokenFor(key, token, { ...user, id: '01936b2e-7a4f-7c3d-9e8a-2b1c4d5e6f71' }, now)).toBe(false);
    expect(isDeviceTokenFor(Buffer.alloc(32, 8), token, user, now)).toBe(false);
  });

  it('expire after their maximum age and are not accepted from the future', () => {
    const token = deviceTokenFor(key, user, now);
    const later = (s: number) => new Date(now.getTime() + s * 1000);
    expect(isDeviceTokenFor(key, token, user, later(DEVICE_TOKEN_MAX_AGE_SECONDS - 60))).toBe(true);
    expect(isDeviceTokenFor(key, token, user, later(DEVICE_TOKEN_MAX_AGE_SECONDS + 60))).toBe(false);
    expect(isDeviceTokenFor(key, token, user, later(-3600))).toBe(false);
  });

  it('reject malformed values without throwing', () => {
    for (const bad of [undefined, '', 'x', 'x.y', `1.${'ÿ'.repeat(43)}`, `abc.${'A'.repeat(43)}`, `1.${'A'.repeat(44)}`]) {
      expect(isDeviceTokenFor(key, bad, user, now)).toBe(false);
    }
  });
});
