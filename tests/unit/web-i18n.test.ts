/** The web UI's text lookup: language, English fallback, the key itself, values, the singular. */
import { lookup } from '../../web/src/i18n/lookup.js';

const en = { 'nav.unread': '{count} unread notifications', 'nav.unread.one': '1 unread notification', 'app.save': 'Save', 'only.en': 'English only' };
const de = { 'nav.unread': '{count} ungelesene Benachrichtigungen', 'nav.unread.one': '1 ungelesene Benachrichtigung', 'app.save': 'Speichern' };

describe('lookup', () => {
  it('answers the user language, else English, else the key', () => {
    expect(lookup(de, en, 'app.save')).toBe('Speichern');
    expect(lookup(de, en, 'only.en')).toBe('English only');
    expect(lookup(de, en, 'no.such.key')).toBe('no.such.key');
  });

  it('fills values and keeps an unknown placeholder as written', () => {
    expect(lookup(en, en, 'nav.unread', { count: 3 })).toBe('3 unread notifications');
    expect(lookup({ x: '{a} and {b}' }, en, 'x', { a: 1 })).toBe('1 and {b}');
  });

  it('takes the .one text for a count of one, in the user language first', () => {
    expect(lookup(en, en, 'nav.unread', { count: 1 })).toBe('1 unread notification');
    expect(lookup(de, en, 'nav.unread', { count: 1 })).toBe('1 ungelesene Benachrichtigung');
    expect(lookup(de, en, 'nav.unread', { count: 0 })).toBe('0 ungelesene Benachrichtigungen');
    expect(lookup({}, { 'k': '{count} things' }, 'k', { count: 1 })).toBe('1 things');
  });
});
