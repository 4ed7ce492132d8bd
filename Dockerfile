# syntax=docker/dockerfile:1
# Build stage: compiles TypeScript and the native SQLite module, then drops dev dependencies.
FROM node:20-bookworm AS build
# Compilers for the native module, and Node's headers found offline (see docker/node-headers.sh).
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
COPY docker/node-headers.sh /usr/local/bin/node-headers
RUN node-headers /opt/node-headers
ENV npm_config_nodedir=/opt/node-headers
WORKDIR /app
COPY package.json package-lock.json ./
# The dependencies alone, in a layer of their own that source changes do not invalidate: without
# the project's own `prepare` script (the build, whose sources come next), then the install scripts
# of the two packages that need one.
RUN npm ci --no-audit --no-fund --ignore-scripts && npm rebuild better-sqlite3 esbuild
COPY tsconfig.json tsconfig.build.json ./
COPY schemas ./schemas
COPY src ./src
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# Run stage: compiled JavaScript and production dependencies only, as the unprivileged `node` user.
FROM node:20-bookworm
# MALLOC_MMAP_THRESHOLD_: glibc serves blocks of 4 MiB and more from mappings of their own, given
# back when freed. A client secret's derivation takes 16 MiB on one of libuv's worker threads; with
# glibc's moving threshold every one after the first stayed in its thread's arena (docs/behaviour.md,
# "A client secret's derivation").
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATABASE_PATH=/data/sandbox.db \
    MALLOC_MMAP_THRESHOLD_=4194304
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 8080
# Listening beyond loopback, the server refuses to start without SANDBOX_ADMIN_TOKEN (see README).
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/_sandbox/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The node flags of `npm start` (see docs/behaviour.md, "Memory"); no sources here, so no freshness check.
CMD ["node", "--max-old-space-size=192", "--max-semi-space-size=4", "--no-allocation-site-pretenuring", "--v8-pool-size=1", "--no-sparkplug", "dist/server.cjs"]
