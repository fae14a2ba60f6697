#!/usr/bin/env bash
# Run before `npm start` and `npm test`: Bun comes from npm, whose `bun` package links its native binary in an install
# script. `npm install --ignore-scripts` and pnpm skip that script, so this links it now (offline, from the platform
# package npm installed beside it), saying so in one line.
cd "$(dirname "$0")/.." || exit 1
if ./node_modules/.bin/bun --version >/dev/null 2>&1; then
  exit 0
fi
if [ ! -f node_modules/bun/install.js ]; then
  echo "vitrin: Bun is not installed; run: npm install" >&2
  exit 1
fi
echo "vitrin: linking Bun's binary, which npm left out (installed without install scripts): node node_modules/bun/install.js" >&2
if node node_modules/bun/install.js >/dev/null && ./node_modules/.bin/bun --version >/dev/null 2>&1; then
  exit 0
fi
echo "vitrin: could not link Bun's binary; run: (cd node_modules/bun && node install.js), or npm rebuild bun" >&2
exit 1
