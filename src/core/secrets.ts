/**
 * Sealing secret fields at rest (implemented by the secret box of src/infra/crypto). The context
 * names table, field and row ("connections.password:<id>"), so a sealed value cannot be moved to
 * another row.
 */
export interface Secrets {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}
