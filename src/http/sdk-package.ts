/**
 * GET /sdk/herald-sdk.tgz: the SDK and herald-cli as npm packed them (`make build`), so that a
 * pipeline runs `npx --yes "$HERALD_URL/sdk/herald-sdk.tgz" reports run …` with the client of this
 * server's own version, without a registry. Public like /docs: the package holds nothing but code.
 * Caches may keep it but must ask again each time (no-cache, with an ETag and Last-Modified that
 * answer 304), so none hands out an old package after an upgrade (npx's own store of what it
 * installed is another matter: README, "In a pipeline"). Without a built package the path answers
 * 404 like any unknown one.
 */
import express, { type Router } from 'express';

export const SDK_PACKAGE_PATH = '/sdk/herald-sdk.tgz';

export function sdkPackageRouter(file: string): Router {
  const router = express.Router();
  router.get(SDK_PACKAGE_PATH, (_req, res, next) => {
    res.sendFile(file, {
      // The path is this server's own, never a request's: a dot folder on the way (~/.local/…) is fine.
      dotfiles: 'allow',
      cacheControl: false,
      headers: {
        'Content-Type': 'application/gzip',
        'Content-Disposition': 'attachment; filename="herald-sdk.tgz"',
        'Cache-Control': 'public, no-cache',
      },
    }, (err?: NodeJS.ErrnoException) => {
      if (!err || err.code === 'ECONNABORTED') return; // sent, or the client went away
      if (err.code === 'ENOENT' && !res.headersSent) next();
      else next(err);
    });
  });
  return router;
}
