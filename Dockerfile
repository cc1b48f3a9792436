# syntax=docker/dockerfile:1
# Herald's image. The entrypoint is the `herald` command; the default command is `serve`
# (api, scheduler and worker in one process). compose.yaml runs one role per container; see the
# README's "Running in containers". Build: docker build -t herald .

# ---- build: install everything, generate, compile, then keep only the runtime dependencies
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Fixes to dependencies that upstream has not released yet (patch-package, run after install).
COPY patches ./patches
# Exactly the lock file's packages (as the Makefile). bcrypt ships prebuilt binaries: no compiler needed.
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm run sdk:pack && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: the compiled program, its runtime dependencies, the contract, the migrations, the SDK's package and the web UI
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    SVC_LISTEN=0.0.0.0:8080 \
    SVC_DATA_DIR=/var/lib/herald \
    SVC_LOG_FORMAT=json
WORKDIR /app
COPY --from=build /app/package.json /app/openapi.yaml ./
COPY --from=build /app/drizzle ./drizzle
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
# The SDK as npm packed it, served at /sdk/herald-sdk.tgz (npx runs herald-cli from it).
COPY --from=build /app/dist/sdk ./dist/sdk
# The web UI, served at / by the api role (SVC_WEB_DIR defaults to it).
COPY --from=build /app/web/dist ./web/dist
RUN chmod 755 dist/src/cli.js \
 && ln -s /app/dist/src/cli.js /usr/local/bin/herald \
 && mkdir -p /var/lib/herald \
 && chown node:node /var/lib/herald \
 && chmod 700 /var/lib/herald
# The image's own unprivileged user (uid 1000); the program files stay root's, read-only to it.
USER node
EXPOSE 8080
# Calls /health/ready on SVC_PROBE_LISTEN when set, else SVC_LISTEN: give a worker or scheduler
# container an SVC_PROBE_LISTEN (compose.yaml does), or it has nothing to answer.
HEALTHCHECK --interval=15s --timeout=10s --start-period=30s --retries=3 CMD ["herald", "healthcheck"]
ENTRYPOINT ["herald"]
CMD ["serve"]
