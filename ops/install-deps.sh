#!/usr/bin/env bash
# Install what `make run` / `make test` need on a fresh Debian 12 machine: system packages via apt-get
# (as root, or with sudo), then the locked npm dependencies via `npm ci` when the lock file changed.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
  echo "install-deps: need root to run: $*" >&2; exit 1; fi; }

# What apt-get must install: fills `missing` (the packages) and `ceph` (the S3 test store, without recommends).
find_missing() {
  missing=()
  [ -x /usr/sbin/nats-server ] || command -v nats-server >/dev/null || missing+=(nats-server)
  [ -x /usr/lib/chromium/chromium ] || [ -x /usr/bin/chromium ] || missing+=(chromium)
  command -v openssl >/dev/null || missing+=(openssl)
  # ffmpeg: the worker encodes a capture's session recording with it (options.recordSession, src/capture/session-recorder.ts);
  # ffprobe (same package) is what the session-recording test plays the video with.
  command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null || missing+=(ffmpeg)
  # nginx: only for `make test` (test/e2e/load-balancer.e2e.spec.ts runs ops/nginx/lb.conf on loopback);
  # `make run`, `make bench` and the service never use it: only INSTALL_DEPS=test installs it.
  if [ "${INSTALL_DEPS:-test}" = test ]; then [ -x /usr/sbin/nginx ] || command -v nginx >/dev/null || missing+=(nginx); fi
  # pdftoppm / pdftotext: the certificate test renders the PDF and reads back its text.
  command -v pdftoppm >/dev/null && command -v pdftotext >/dev/null || missing+=(poppler-utils)
  # The certificate PDF embeds DejaVu, and Noto Sans CJK for the characters DejaVu lacks (src/evidence/certificate-fonts.ts).
  [ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
  [ -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] || missing+=(fonts-noto-cjk)
  # radosgw / ceph-mon / ceph-osd: only for `make test` — the S3 artifact-store tests run a throw-away one-node Ceph on
  # loopback (test/support/radosgw.ts) — and for `make bench` when it runs the storage bench (BENCH unset or naming
  # storage). Installed on their own, without recommends (~270 MB instead of ~1 GB).
  ceph=()
  if [ "${INSTALL_DEPS:-test}" = test ] || { [ "${INSTALL_DEPS:-}" = bench ] && [[ ",${BENCH:-storage}," == *,storage,* ]]; }; then
    for bin in radosgw ceph-mon ceph-osd; do [ -x "/usr/bin/$bin" ] || ceph+=("$bin"); done
  fi
}

find_missing
if [ ${#missing[@]} -gt 0 ] || [ ${#ceph[@]} -gt 0 ]; then
  # One install at a time on this machine (two clones, or `make run` beside `make test`): apt-get refuses to run
  # while another holds dpkg's lock. The second waits here, then installs only what the first did not.
  lock=/var/tmp/capture-ledger-apt.lock
  [ -e "$lock" ] || : >"$lock"
  exec 9<"$lock"
  flock -w 1800 9 || { echo "install-deps: another apt-get install held the lock for 30 minutes" >&2; exit 1; }
  find_missing
fi
if [ ${#missing[@]} -gt 0 ] || [ ${#ceph[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]} ${ceph[*]} with apt-get" >&2
  # apt-get and the packages' maintainer scripts get a temporary directory of their own (/tmp may be 0755).
  TMPDIR=$(mktemp -d "${XDG_RUNTIME_DIR:-/var/tmp}/cl-apt.XXXXXX")
  export TMPDIR
  chmod 1777 "$TMPDIR"
  as_root env TMPDIR="$TMPDIR" apt-get -o DPkg::Lock::Timeout=600 update -qq
  # A package's maintainer script must not start a system nginx on port 80: policy-rc.d 101 forbids
  # starting services during this install (a file that is already there is left alone).
  guard=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    guard=/usr/sbin/policy-rc.d
    trap 'as_root rm -f "$guard"' EXIT
    printf '#!/bin/sh\nexit 101\n' | as_root tee "$guard" >/dev/null && as_root chmod 755 "$guard"
  fi
  if [ ${#missing[@]} -gt 0 ]; then
    as_root env TMPDIR="$TMPDIR" DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" >/dev/null
  fi
  if [ ${#ceph[@]} -gt 0 ]; then
    as_root env TMPDIR="$TMPDIR" DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${ceph[@]}" >/dev/null
  fi
fi
exec 9<&-  # the next install may start while this one runs npm ci

stamp=node_modules/.capture-ledger-lock
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  echo "install-deps: npm ci" >&2
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
