/**
 * Parameter values of a report, as the form holds them (text per parameter) and as the contract
 * takes them (name → string, number or boolean). An empty field is left out, so the parameter's
 * default applies; a number that does not read as one is sent as typed, for the service to refuse
 * on `parameters.<name>`. No imports, for unit tests.
 */

export type ParameterType = 'string' | 'number' | 'integer' | 'boolean' | 'date' | 'timestamp';
export interface QueryParameter {
  name: string;
  type: ParameterType;
  required?: boolean;
  default?: string | number | boolean | null;
  description?: string;
}
export type ParameterValue = string | number | boolean | null;

/** The values as the form holds them: text per parameter name. */
export function parameterForm(values: Record<string, ParameterValue | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([name, v]) => [name, v === undefined || v === null ? '' : String(v)]));
}

export function parameterValues(params: QueryParameter[], form: Record<string, string>): Record<string, ParameterValue> {
  const out: Record<string, ParameterValue> = {};
  for (const p of params) {
    const text = form[p.name] ?? '';
    if (text.trim() === '') continue;
    switch (p.type) {
      case 'number':
      case 'integer':
        out[p.name] = Number.isFinite(Number(text)) ? Number(text) : text;
        break;
      case 'boolean':
        out[p.name] = text === 'true' ? true : text === 'false' ? false : text;
        break;
      default:
        out[p.name] = text;
    }
  }
  return out;
}
