#!/bin/sh
# Installs Debian's chromium for the console's browser tests (test/browser/*), when it is missing.
# Playwright's own browser download does not work on this network: the tests drive
# /usr/bin/chromium through playwright-core's executablePath instead.
# As root: apt-get install -y chromium. Not root: skip, saying why (the tests then skip too).
set -eu
if [ -x /usr/bin/chromium ]; then
  echo "browser.sh: $(/usr/bin/chromium --version 2>/dev/null || echo chromium) already installed"
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "browser.sh: skipping: /usr/bin/chromium is missing and installing it needs root (apt-get install -y chromium)"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
echo "browser.sh: installed $(/usr/bin/chromium --version)"
