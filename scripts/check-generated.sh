#!/usr/bin/env bash
# Regenerates what is generated from the API documents (the developer API's client types, the web
# app's API document and types) and fails when the checked-in copies differ: a route's schema changed
# without `npm run client:types && npm run app:client`.
set -euo pipefail
cd "$(dirname "$0")/.."
GENERATED=(packages/client/src/schema.d.ts web/src/api/app-api.json web/src/api/schema.d.ts)
npm run --silent client:types >/dev/null
npm run --silent app:client >/dev/null
if ! git diff --exit-code --stat -- "${GENERATED[@]}"; then
  echo "generated files are stale: run npm run client:types && npm run app:client, and commit them" >&2
  exit 1
fi
