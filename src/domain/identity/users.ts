/** Reading users: the one place a missing user becomes not_found. */
import { notFound } from '../../core/errors.js';
import type { User } from './model.js';
import type { UsersRepo } from './ports.js';

export async function getUser(users: Pick<UsersRepo, 'find'>, id: string): Promise<User> {
  const row = await users.find(id);
  if (!row) throw notFound('user');
  return row;
}
