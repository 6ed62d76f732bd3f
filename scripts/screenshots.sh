#!/usr/bin/env bash
# Refreshes the committed screenshots in docs/screenshots/: runs the browser
# tests (all of them, or the test files named, e.g. `public.test.js`) with
# BROADSIDE_SCREENSHOTS set, which makes them copy every picture they take
# there as well. A plain `scripts/e2e.sh` leaves the checkout untouched.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export BROADSIDE_SCREENSHOTS="$root/docs/screenshots"
exec "$root/scripts/e2e.sh" "$@"
