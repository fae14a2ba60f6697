#!/usr/bin/env bash
# Run before `npm start` and in CI: vitrin renders with the system's ffmpeg. When it is missing and this runs as root
# with apt-get (Debian/Ubuntu), it says in one line what it installs, why and how to skip that, then installs Debian's
# ffmpeg. Skipped (VITRIN_SKIP_SYSTEM_DEPS=1) or unable to install (not root, no apt-get), it exits 1 with the exact
# command to run instead.
if command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1; then
  exit 0
fi

# The exact command that installs ffmpeg on this machine, for the operator to run.
install_command() {
  if command -v apt-get >/dev/null 2>&1; then echo "sudo apt-get install -y ffmpeg"
  elif command -v dnf >/dev/null 2>&1; then echo "sudo dnf install -y ffmpeg"
  elif command -v apk >/dev/null 2>&1; then echo "sudo apk add ffmpeg"
  elif command -v brew >/dev/null 2>&1; then echo "brew install ffmpeg"
  else echo "install ffmpeg (with ffprobe) from your system's packages or https://ffmpeg.org/download.html"
  fi
}

stop() {
  echo "vitrin: $1; videos are rendered with ffmpeg. Run this, then start again:" >&2
  echo "  $(install_command)" >&2
  exit 1
}

case "$(printf '%s' "${VITRIN_SKIP_SYSTEM_DEPS:-}" | tr '[:upper:]' '[:lower:]')" in
  1 | true | yes | on) stop "ffmpeg is not installed and VITRIN_SKIP_SYSTEM_DEPS is set, so it is not installed for you" ;;
esac
if ! command -v apt-get >/dev/null 2>&1; then
  stop "ffmpeg is not installed (this machine has no apt-get to install it with)"
fi
if [ "$(id -u)" != "0" ]; then
  stop "ffmpeg is not installed (installing it needs root)"
fi

echo "vitrin: installing the system package ffmpeg with apt-get (videos are rendered with it); set VITRIN_SKIP_SYSTEM_DEPS=1 to skip this and install it yourself" >&2
if apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ffmpeg >/dev/null; then
  echo "vitrin: ffmpeg installed." >&2
  exit 0
fi
stop "installing ffmpeg with apt-get failed"
