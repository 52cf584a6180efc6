# syntax=docker/dockerfile:1
# Production image: the compiled service (dist/) on Node 24 LTS, Debian slim, production dependencies
# only (no TypeScript, tsx or esbuild), non-root, read-only friendly (nothing written at run time),
# health-checked on /health/live. DEFLATE tiles inflate through libdeflate (the native binding built in
# stage 1; its one runtime library, libdeflate0, installed in the image), and a cube's steps fold through the
# native fold built beside it (native/fold/, no library). Blosc's LZ4 streams decode through
# lz4-napi, whose prebuilt binary is an optional npm package of the production dependencies (no compiler).

# 1. Build: every dependency, then the native inflater and fold (node-gyp: the full node image has python3, make
#    and g++; libdeflate-dev from Debian), tsc → dist/ and the web page (esbuild) → dist/web/.
FROM node:24-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libdeflate-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY native ./native
RUN node scripts/build-native.mjs && test -f native/inflate/build/Release/zonal_inflate.node && test -f native/fold/build/Release/zonal_fold.node
COPY src ./src
COPY web ./web
RUN node scripts/build.mjs

# 2. Production dependencies alone.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund

# 3. The image: compiled code, production modules, the native inflater and libdeflate, the native fold, the demo data.
FROM node:24-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libdeflate0 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/native/inflate/build/Release/zonal_inflate.node ./native/inflate/build/Release/zonal_inflate.node
COPY --from=build /app/native/fold/build/Release/zonal_fold.node ./native/fold/build/Release/zonal_fold.node
COPY package.json ./
COPY fixtures/demo ./fixtures/demo
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/live').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# node itself is PID 1's child-free process: SIGTERM reaches the server and starts its drain.
STOPSIGNAL SIGTERM
# The main thread's young generation capped at 4 MB semi-spaces, as `npm start` does (README, Memory): Node 24
# otherwise sizes it from the machine's memory, and a year of hourly cube steps then peaked ~100 MiB higher.
CMD ["node", "--max-semi-space-size=4", "dist/server.js"]
