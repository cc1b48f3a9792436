import { notifications } from '@mantine/notifications';
import type { Translate } from '../../../i18n';

/** A notification in the corner, with a close button that says what it does. */
export function notify(t: Translate, message: string, options: { color?: string; title?: string; autoClose?: number } = {}): void {
  notifications.show({ color: 'green', ...options, message, closeButtonProps: { 'aria-label': t('app.close') } });
}
