/**
 * The password hasher's dummy hash (what an unknown user's password is compared against, so that
 * timing does not reveal accounts) is made on bcrypt's thread pool, never with hashSync on the
 * event loop, where it held every process's start-up 0.2 s at cost 12: at once when warm (a
 * process that answers sign-ins), else on the first unknown user; and always at the configured
 * cost, so that an unknown user's comparison costs what a known one's does.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import bcrypt from 'bcrypt';
import { createPasswordHasher } from '../../src/domain/identity/passwords.js';

const COST = 4; // bcrypt's least: what is checked here is when and how the dummy is made, not its cost
const costOf = (hash: string): number => Number(hash.split('$')[2]);

afterEach(() => { jest.restoreAllMocks(); });

describe('password hasher', () => {
  it('makes no hash on the event loop when created, warm or not', () => {
    const hashSync = jest.spyOn(bcrypt, 'hashSync');
    const hash = jest.spyOn(bcrypt, 'hash');
    createPasswordHasher(COST, COST);
    expect(hash).not.toHaveBeenCalled(); // not warm: nothing until an unknown user comes
    createPasswordHasher(COST, COST, { warm: true });
    expect(hash).toHaveBeenCalledTimes(1); // warm: the dummy is on its way, on the thread pool
    expect(hashSync).not.toHaveBeenCalled();
  });

  it('compares an unknown user\'s password with a dummy of the same cost, made once', async () => {
    const hash = jest.spyOn(bcrypt, 'hash');
    const compare = jest.spyOn(bcrypt, 'compare');
    const hasher = createPasswordHasher(COST, COST);
    const known = await hasher.hash('correct horse battery');
    expect(await hasher.verify('correct horse battery', known)).toBe(true);
    expect(await hasher.verify('something else', known)).toBe(false);
    hash.mockClear();
    expect(await hasher.verify('correct horse battery', null)).toBe(false);
    expect(await hasher.verify('anything', null)).toBe(false);
    expect(hash).toHaveBeenCalledTimes(1); // the dummy, made for the first unknown user and kept
    const againstDummy = compare.mock.calls.slice(-2).map((call) => call[1] as string);
    expect(againstDummy[0]).toBe(againstDummy[1]);
    expect(againstDummy[0]).not.toBe(known);
    expect(costOf(againstDummy[0]!)).toBe(costOf(known));
    expect(costOf(known)).toBe(COST);
  });

  it('warm, the first unknown user waits for the dummy made at creation', async () => {
    const hash = jest.spyOn(bcrypt, 'hash');
    const hasher = createPasswordHasher(COST, COST, { warm: true });
    expect(await hasher.verify('anything', null)).toBe(false);
    expect(hash).toHaveBeenCalledTimes(1);
  });

  it('makes the dummy again when making it failed, and fails the verify that needed it', async () => {
    const hash = jest.spyOn(bcrypt, 'hash').mockImplementationOnce((() => Promise.reject(new Error('thread pool gone'))) as never);
    const hasher = createPasswordHasher(COST, COST, { warm: true });
    await expect(hasher.verify('anything', null)).rejects.toThrow('thread pool gone');
    expect(await hasher.verify('anything', null)).toBe(false);
    expect(hash).toHaveBeenCalledTimes(2);
  });

  it('refuses a cost below the floor', () => {
    expect(() => createPasswordHasher(11)).toThrow('bcrypt cost must be at least 12');
  });
});
