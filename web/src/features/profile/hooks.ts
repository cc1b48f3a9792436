/**
 * The profile's queries and mutations (one hook each) over the contract's `me` operations. Every
 * mutation refreshes what it changed: the user (GET /me), the sessions, or the passkeys.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Schemas } from '@herald/sdk';
import { api } from '../../api/client';
import { keys } from '../../api/keys';
import { createPasskey } from '../auth/utils/webauthn';

type Me = Schemas['Me'];

export function useUpdateMe() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas['UpdateMe']) => api.call('updateMe', { body }),
    onSuccess: (me) => { client.setQueryData<Me>(keys.me, me); },
  });
}

export function useChangePassword() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Schemas['ChangePassword']) => api.call('changeMyPassword', { body }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: keys.me });
      await client.invalidateQueries({ queryKey: keys.sessions.all });
    },
  });
}

export function useSessions() {
  return useQuery({ queryKey: keys.sessions.lists(), queryFn: () => api.call('listMySessions') });
}

export function useRevokeSession() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (sessionId: string) => api.call('revokeMySession', { path: { sessionId } }),
    onSettled: () => client.invalidateQueries({ queryKey: keys.sessions.all }),
  });
}

/** Signs out every session but this one, one after the other (the contract's revoke-all includes this one). */
export function useRevokeOtherSessions() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (sessionIds: string[]) => {
      for (const sessionId of sessionIds) await api.call('revokeMySession', { path: { sessionId } });
    },
    onSettled: () => client.invalidateQueries({ queryKey: keys.sessions.all }),
  });
}

export function useRevokeAllSessions() {
  return useMutation({ mutationFn: () => api.call('revokeAllMySessions') });
}

export function useStartTotpSetup() {
  return useMutation({ mutationFn: () => api.call('startTotpSetup') });
}

export function useConfirmTotp() {
  return useMutation({ mutationFn: (code: string) => api.call('confirmTotpSetup', { body: { code } }) });
}

/** After the recovery codes were shown: the user reads as having the authenticator app on. */
export function useTwoFactorChanged() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: keys.me });
}

export type Reauthentication = Schemas['Reauthentication'];

export function useDisableTotp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: Reauthentication) => api.call('disableMyTwoFactor', { body }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.me }),
  });
}

export function useRegenerateRecoveryCodes() {
  return useMutation({ mutationFn: (body: Reauthentication) => api.call('regenerateRecoveryCodes', { body }) });
}

export function usePasskeys(enabled = true) {
  return useQuery({ queryKey: keys.passkeys.lists(), queryFn: () => api.call('listMyPasskeys'), enabled });
}

/** Options from the API, a new credential from the browser, then the API verifies and keeps it. */
export function useAddPasskey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (name: string) => {
      const { options } = await api.call('startPasskeyRegistration');
      const credential = await createPasskey(options);
      return api.call('addMyPasskey', { body: { credential, ...(name.trim() ? { name: name.trim() } : {}) } });
    },
    onSuccess: () => client.invalidateQueries({ queryKey: keys.passkeys.all }),
  });
}

export function useRenamePasskey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, name }: { id: string; name: string }) => api.call('renameMyPasskey', { path: { passkeyId: id }, body: { name } }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.passkeys.all }),
  });
}

export function useRemovePasskey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.call('removeMyPasskey', { path: { passkeyId: id } }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.passkeys.all }),
  });
}
