/**
 * The loading indicator: a spinner announced as "Loading". Mantine's Loader is a bare span, and a
 * span may carry an accessible name only with a role (axe: aria-prohibited-attr), so it has the
 * status role, which screen readers also announce politely.
 */
import { Loader, type MantineSize } from '@mantine/core';
import { useT } from '../i18n';

export function Loading({ size }: { size?: MantineSize }) {
  const t = useT();
  return <Loader size={size} role="status" aria-label={t('app.loading')} />;
}
