# syntax=docker/dockerfile:1
#
# One image for every process of the fleet: the API (default command), the workers
# (`node dist/workers/main.js <group>`), the codec server and the carrier simulator, all compiled
# JavaScript. See deploy/README.md.
#
# Stages: deps (npm ci) -> build (tsc into dist/, prebuilt workflow bundle, dev dependencies pruned) -> runtime.
# Debian (glibc), not Alpine: the Temporal worker's native core and esbuild ship glibc binaries.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
# npm 11 (as in development) reads package.json#allowScripts, the reviewed list of dependencies
# whose install scripts may run; Node 20's bundled npm 10 would ignore that policy.
ARG NPM_VERSION=11.19.1
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false
RUN npm install --global "npm@${NPM_VERSION}" && npm --version
WORKDIR /app
COPY package.json package-lock.json ./
# The SDK is an npm workspace (sdk/): its manifest is part of the install.
COPY sdk/package.json sdk/
RUN --mount=type=cache,target=/root/.npm npm ci

# ---------------------------------------------------------------------------------------------
FROM deps AS build
COPY . .
# `npm run build`: tsc compiles every process into dist/, and the workflow bundle that workers load
# instead of bundling workflow code with webpack at every start.
RUN npm run build && test -s dist/api/main.js && test -s dist/workers/main.js && test -s dist/workflow-bundle.js
RUN npm prune --omit=dev

# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    PATH=/app/node_modules/.bin:$PATH \
    PORT=3000 \
    HOST=0.0.0.0
WORKDIR /app
# Owned by root and read-only to the app: the process can change none of its own code.
COPY --from=build /app /app
# `node` (uid 1000) is the unprivileged user of the official Node images.
USER node
EXPOSE 3000
# The API's liveness probe; the compose file switches it off for the workers, which serve no HTTP.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Compiled JavaScript, started by node itself: no TypeScript loader at every start, and no npx or npm,
# which would put a shell between the container's init and the app, which then never sees SIGTERM
# and cannot drain.
CMD ["node", "dist/api/main.js"]
