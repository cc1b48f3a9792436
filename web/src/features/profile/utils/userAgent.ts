/**
 * A User-Agent string as a person recognises it: the browser and its major version ("Firefox
 * 128") and the system ("Windows", "iPhone"); other programs by their first product token
 * ("curl/8.5.0") without a system.
 */
const BROWSERS: Array<[RegExp, string]> = [
  [/Edg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/OPR\/(\d+)/, 'Opera'],
  [/Firefox\/(\d+)/, 'Firefox'],
  [/FxiOS\/(\d+)/, 'Firefox'],
  [/Chromium\/(\d+)/, 'Chromium'],
  [/CriOS\/(\d+)/, 'Chrome'],
  [/HeadlessChrome\/(\d+)/, 'Chrome'],
  [/Chrome\/(\d+)/, 'Chrome'],
  [/Version\/(\d+)[.\d]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
];

const SYSTEMS: Array<[RegExp, string]> = [
  [/iPhone/, 'iPhone'],
  [/iPad/, 'iPad'],
  [/Android/, 'Android'],
  [/CrOS/, 'ChromeOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/Linux/, 'Linux'],
];

export interface Device { app: string; system: string | null }

export function describeUserAgent(ua: string | null | undefined): Device | null {
  if (!ua || !ua.trim()) return null;
  for (const [re, name] of BROWSERS) {
    const m = re.exec(ua);
    if (m) return { app: `${name} ${m[1]}`, system: SYSTEMS.find(([sys]) => sys.test(ua))?.[1] ?? null };
  }
  const first = ua.trim().split(/\s+/)[0]!;
  return { app: first.length > 60 ? `${first.slice(0, 57)}…` : first, system: null };
}
