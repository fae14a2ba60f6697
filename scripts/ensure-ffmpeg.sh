#!/usr/bin/env bash
# Run before `npm start` and in CI: vitrin renders with the system's ffmpeg. On Debian/Ubuntu as root it is
# installed from the distribution's packages; otherwise this prints exactly how, and the service still starts
# (its /readyz then reports the renderer as not ready).
if command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "vitrin: ffmpeg not found; installing Debian's ffmpeg package (apt-get install ffmpeg)…" >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ffmpeg >/dev/null \
    && { echo "vitrin: ffmpeg installed." >&2; exit 0; }
  echo "vitrin: installing ffmpeg failed; videos cannot be rendered until it is installed." >&2
  exit 0
fi
cat >&2 <<'MSG'
vitrin: ffmpeg is not installed, so videos cannot be rendered yet. Install it and restart:
  Debian/Ubuntu:  sudo apt-get install ffmpeg
  Fedora:         sudo dnf install ffmpeg
  macOS:          brew install ffmpeg
MSG
exit 0
