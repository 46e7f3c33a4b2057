#!/usr/bin/env bash
# Builds the image's `chromium` target and smoke-tests it (test/container/smoke.ts --chromium):
# a rendered report, Chromium's processes non-root and sandboxed. Not part of .ci/run (Debian's
# Chromium adds about 1 GB and several minutes); run it by hand after changing the Containerfile,
# the renderer or its sandbox. Needs what .ci/run needs: root, podman made ready by
# prepare-podman.sh (../shared/containers beside the clone, or /work/shared/containers).
set -euo pipefail
cd "$(dirname "$0")/.."
PREPARE=""
for candidate in ../shared/containers/prepare-podman.sh /work/shared/containers/prepare-podman.sh; do
  if [ -f "$candidate" ]; then PREPARE="$candidate"; break; fi
done
[ -n "$PREPARE" ] || { echo "prepare-podman.sh not found (../shared/containers/ or /work/shared/containers/)" >&2; exit 1; }
PODMAN_ENV=$(bash "$PREPARE" | tail -n1)
export CONTAINERS_CONF="${PODMAN_ENV#CONTAINERS_CONF=}"; CONTAINERS_CONF="${CONTAINERS_CONF%% *}"
NPMRC_CA="${PODMAN_ENV##*NPMRC_CA=}"
IMAGE=${IMAGE:-localhost/auditcaptcha:chromium}
started=$SECONDS
podman build --pull=never --format docker --target chromium -t "$IMAGE" \
  --secret id=npmrc,src="$NPMRC_CA" --secret id=ca,src=/etc/ssl/certs/ca-certificates.crt .
echo "built in $((SECONDS - started)) s: $(podman image inspect --format '{{.Size}}' "$IMAGE" | awk '{printf "%.0f MB", $1/1e6}')"
npx tsx test/container/smoke.ts "$IMAGE" --chromium
