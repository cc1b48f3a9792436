import { v7 as uuidv7, validate, version } from 'uuid';

export function newId(): string {
  return uuidv7();
}

export function isUuid(value: string): boolean {
  return validate(value) && version(value) >= 1;
}
