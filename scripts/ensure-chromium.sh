#!/usr/bin/env bash
# Run in CI before the tests: Studio's browser tests (test/studio-*.test.ts) drive Debian's chromium package through
# playwright-core, and nothing ever downloads a browser. When /usr/bin/chromium (or $VITRIN_CHROMIUM) is missing and
# this runs as root with apt-get, it says so in one line and installs the `chromium` package; otherwise it exits 1 with
# the command to run (the browser tests then fail under CI=true and are skipped, saying why, outside CI).
browser="${VITRIN_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$browser" ]; then
  exit 0
fi

stop() {
  echo "vitrin: $1; Studio's browser tests need Debian's chromium. Run this, then test again:" >&2
  echo "  sudo apt-get install -y chromium" >&2
  exit 1
}

if [ -n "${VITRIN_CHROMIUM:-}" ]; then
  stop "VITRIN_CHROMIUM=$VITRIN_CHROMIUM is not an executable file"
fi
if ! command -v apt-get >/dev/null 2>&1; then
  stop "chromium is not installed (this machine has no apt-get to install it with)"
fi
if [ "$(id -u)" != "0" ]; then
  stop "chromium is not installed (installing it needs root)"
fi

echo "vitrin: installing the Debian package chromium with apt-get (Studio's browser tests drive it; no browser is downloaded otherwise)" >&2
if apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; then
  echo "vitrin: chromium installed: $("$browser" --version 2>/dev/null | head -n 1)" >&2
  exit 0
fi
stop "installing chromium with apt-get failed"
