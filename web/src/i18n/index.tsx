/**
 * English and German texts. `t('key', {name})` looks the key up in the user's language (their
 * preference, else the browser's), falls back to English, then to the key itself. Problem codes
 * have their texts under `problem.<code>`; a code without one shows the problem's own title.
 * Plugins bring their own translations (GET /plugins), merged in by the forms that show them.
 */
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import { en } from './en';
import { de } from './de';

import { lookup, type Messages } from './lookup';

export type { Messages };

/** Each feature brings its texts in features/<tag>/messages.ts ({en, de}); merged here, no list to edit. */
const featureMessages = import.meta.glob<{ messages: { en: Messages; de?: Messages } }>('../features/*/messages.ts', { eager: true });
const DICTIONARIES: Record<string, Messages> = { en: { ...en }, de: { ...de } };
for (const mod of Object.values(featureMessages)) {
  Object.assign(DICTIONARIES.en!, mod.messages.en);
  Object.assign(DICTIONARIES.de!, mod.messages.de ?? {});
}
export const LANGUAGES = [{ value: 'en', label: 'English' }, { value: 'de', label: 'Deutsch' }];

export type Translate = (key: string, vars?: Record<string, string | number>) => string;

export function languageOf(locale: string | undefined): string {
  const lang = (locale ?? (typeof navigator === 'undefined' ? 'en' : navigator.language)).slice(0, 2).toLowerCase();
  return lang in DICTIONARIES ? lang : 'en';
}

export function translator(language: string): Translate {
  const dict = DICTIONARIES[language] ?? DICTIONARIES.en!;
  const english = DICTIONARIES.en!;
  return (key, vars) => lookup(dict, english, key, vars);
}

interface I18n { t: Translate; language: string; timeZone: string; locale: string }
const Ctx = createContext<I18n>({ t: translator('en'), language: 'en', timeZone: 'UTC', locale: 'en' });

export function I18nProvider({ locale, timeZone, children }: { locale?: string | undefined; timeZone?: string | undefined; children: ReactNode }) {
  const value = useMemo(() => {
    const language = languageOf(locale);
    const zone = timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC';
    if (typeof document !== 'undefined') document.documentElement.lang = language;
    return { t: translator(language), language, timeZone: zone, locale: locale ?? language };
  }, [locale, timeZone]);
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export const useI18n = () => useContext(Ctx);
export const useT = () => useContext(Ctx).t;
