#!/usr/bin/env bash
# Install what `make run` / `make test` need on a fresh Debian 12 machine: system packages via apt-get
# (as root, or with sudo), then the locked npm dependencies via `npm ci` when the lock file changed.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
  echo "install-deps: need root to run: $*" >&2; exit 1; fi; }

missing=()
[ -x /usr/sbin/nats-server ] || command -v nats-server >/dev/null || missing+=(nats-server)
[ -x /usr/lib/chromium/chromium ] || [ -x /usr/bin/chromium ] || missing+=(chromium)
command -v openssl >/dev/null || missing+=(openssl)
# pdftoppm / pdftotext: the certificate test renders the PDF and reads back its text.
command -v pdftoppm >/dev/null && command -v pdftotext >/dev/null || missing+=(poppler-utils)
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]} with apt-get" >&2
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi

stamp=node_modules/.capture-ledger-lock
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  echo "install-deps: npm ci" >&2
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
