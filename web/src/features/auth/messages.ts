export const messages = {
  en: {} as Record<string, string>,
  de: {} as Record<string, string>,
};
