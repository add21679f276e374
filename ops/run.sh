#!/usr/bin/env bash
# `make run`: start every role in the foreground. When neither ADMIN_KEY nor CAPTURE_API_KEY is given, an
# admin key is generated once into DATA_DIR/admin-key and used (legacy single-key mode stays available by
# setting CAPTURE_API_KEY alone, spec 5.10).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${DATA_DIR:=./data}"
mkdir -p "$DATA_DIR"
if [ -z "${ADMIN_KEY:-}" ] && [ -z "${CAPTURE_API_KEY:-}" ]; then
  keyfile="$DATA_DIR/admin-key"
  if [ ! -s "$keyfile" ]; then
    (umask 077; node -e "process.stdout.write(require('crypto').randomBytes(32).toString('hex'))" > "$keyfile")
  fi
  ADMIN_KEY="$(cat "$keyfile")"
  export ADMIN_KEY
  export ADMIN_KEY_FILE="$(cd "$DATA_DIR" && pwd)/admin-key"
fi
# Archived pages replay on an origin of their own (src/api/replay-server.ts): by default the port after PORT.
export REPLAY_PORT="${REPLAY_PORT:-$(( ${PORT:-8080} + 1 ))}"
# The bundled entry (make build, ops/bundle-dist.ts): each role loads only its own chunks.
exec node dist/bundle/main.js
