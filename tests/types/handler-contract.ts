/**
 * Compile-time proof that handlers are bound to openapi.yaml: `make test` type-checks this file,
 * and each @ts-expect-error below must stay an error — if the typing loosened, tsc would fail on
 * the now-unused directive.
 */
import type { Handler, HandlerMap } from '../../src/handlers/types.js';
import { NOT_IMPLEMENTED } from '../../src/handlers/types.js';

export const fine: Handler<'getLiveness'> = async () => ({ status: 200, body: { status: 'ok' } });

// @ts-expect-error a body the document does not allow
export const wrongBody: Handler<'getLiveness'> = async () => ({ status: 200, body: { status: 'fine' } });

// @ts-expect-error a status the document does not declare
export const wrongStatus: Handler<'getLiveness'> = async () => ({ status: 201, body: { status: 'ok' } });

export const readsBody: Handler<'login'> = async (req) => {
  // @ts-expect-error a request field the document does not declare
  const unknownField: string = req.body.username;
  void unknownField;
  throw new Error('not called');
};

// @ts-expect-error a map without every operation
export const incomplete: HandlerMap = { getLiveness: NOT_IMPLEMENTED };
