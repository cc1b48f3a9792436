/**
 * A warning before unsaved edits are lost: leaving the page inside the app asks first (Stay /
 * Leave without saving), and closing or reloading the tab gets the browser's own question.
 * `allowNext()` lets a navigation started in the same task through without asking (a save that
 * navigates at once); it lapses after that task, so later edits are guarded again.
 */
import { useCallback, useEffect, useRef, type ReactNode } from 'react';
import { useBlocker, type BlockerFunction } from 'react-router';
import { useT } from '../i18n';
import { ConfirmDialog } from './ConfirmDialog';

export function useUnsavedChanges(when: boolean): { allowNext: () => void; dialog: ReactNode } {
  const t = useT();
  const allowed = useRef(false);
  const blocker = useBlocker(useCallback<BlockerFunction>(
    ({ currentLocation, nextLocation }) => {
      if (allowed.current) { allowed.current = false; return false; }
      return when && currentLocation.pathname !== nextLocation.pathname;
    },
    [when],
  ));
  useEffect(() => {
    if (!when) return undefined;
    const onBeforeUnload = (e: BeforeUnloadEvent) => { e.preventDefault(); };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [when]);
  const dialog = (
    <ConfirmDialog opened={blocker.state === 'blocked'} title={t('app.unsaved.title')} confirmLabel={t('app.unsaved.leave')}
      onConfirm={() => blocker.proceed?.()} onClose={() => blocker.reset?.()}>
      {t('app.unsaved.body')}
    </ConfirmDialog>
  );
  const allowNext = () => {
    allowed.current = true;
    setTimeout(() => { allowed.current = false; }, 0);
  };
  return { allowNext, dialog };
}
