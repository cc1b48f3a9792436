/**
 * A delivery's settings as the editor holds them: the settings every channel understands
 * (DeliverySettings of the contract) apart from the plugin's own fields (its delivery_schema),
 * and back. Empty subject and body are left out, so the service's default templates apply.
 * No imports, for unit tests.
 */

export type ResultFormat = 'csv' | 'xlsx' | 'json';

export interface CommonSettings {
  subject: string;
  body: string;
  attach: ResultFormat | null;
  link: { format: ResultFormat; expires_in_days: number } | null;
  inline_rows: number;
  send_when_skipped: boolean;
  csv_formula_safe: boolean;
}

const COMMON = ['subject', 'body', 'attach', 'link', 'inline_rows', 'send_when_skipped', 'csv_formula_safe'];

export const DEFAULT_LINK_DAYS = 7;

export function splitSettings(settings: Record<string, unknown> | undefined): { common: CommonSettings; own: Record<string, unknown> } {
  const s = settings ?? {};
  const link = s.link as { format?: ResultFormat; expires_in_days?: number } | null | undefined;
  return {
    common: {
      subject: typeof s.subject === 'string' ? s.subject : '',
      body: typeof s.body === 'string' ? s.body : '',
      attach: (s.attach as ResultFormat | null | undefined) ?? null,
      link: link ? { format: link.format ?? 'csv', expires_in_days: link.expires_in_days ?? DEFAULT_LINK_DAYS } : null,
      inline_rows: typeof s.inline_rows === 'number' ? s.inline_rows : 0,
      send_when_skipped: s.send_when_skipped === true,
      csv_formula_safe: s.csv_formula_safe !== false,
    },
    own: Object.fromEntries(Object.entries(s).filter(([k]) => !COMMON.includes(k))),
  };
}

/** The settings to send: the common ones (empty templates left out) and the plugin's own, as given. */
export function joinSettings(common: CommonSettings, own: Record<string, unknown>): Record<string, unknown> {
  return {
    ...own,
    attach: common.attach,
    link: common.link,
    inline_rows: common.inline_rows,
    send_when_skipped: common.send_when_skipped,
    csv_formula_safe: common.csv_formula_safe,
    ...(common.subject.trim() === '' ? {} : { subject: common.subject }),
    ...(common.body.trim() === '' ? {} : { body: common.body }),
  };
}

/** Whether the result goes out as csv (then formula-safe matters). */
export const sendsCsv = (c: CommonSettings): boolean => c.attach === 'csv' || c.link?.format === 'csv';
