#!/usr/bin/env bash
# Refresh docs/javascripts/iframe-worker/ from the npm registry: the tiny
# Web Worker shim (by the author of mkdocs-material, MIT licence) that lets
# the site's search run when the site is opened from file://. mkdocs.yml
# names it in extra.polyfills, so the offline plugin loads no copy from a CDN.
#   bash mkdocs_hooks/vendor_iframe_worker.sh [VERSION]
set -euo pipefail
version="${1:-1.0.4}"
cd "$(dirname "$0")/.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
(cd "$scratch" && npm pack --silent "iframe-worker@$version" >/dev/null && tar xzf "iframe-worker-$version.tgz")
mkdir -p docs/javascripts/iframe-worker
cp "$scratch/package/shim/index.js" docs/javascripts/iframe-worker/shim.js
cp "$scratch/package/LICENSE" docs/javascripts/iframe-worker/LICENSE
echo "iframe-worker $version: docs/javascripts/iframe-worker/shim.js"
