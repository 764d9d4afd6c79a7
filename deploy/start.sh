#!/bin/sh
# `npm start`, `npm run keys` and `npm run policies`: run the built single file and nothing
# else. No build step: starting must not need the development toolchain, nor take seconds.
# The last line is `exec`, so the shell hands its process over to node and a signal sent to
# npm (which forwards SIGTERM and SIGINT to its child) reaches the server itself, which then
# drains and exits.
# Refuses with one line when the build is missing or older than a source it was built from.
set -eu
bundle=dist/credential-generator.mjs
if [ ! -f "$bundle" ]; then
  echo "$bundle is missing: run npm run build first" >&2
  exit 1
fi
newer=$(find package.json server.ts lib browser spec wordlist -type f -newer "$bundle" 2>/dev/null | head -n 1)
if [ -n "$newer" ]; then
  echo "$bundle is older than $newer: run npm run build first" >&2
  exit 1
fi
exec node "$bundle" "$@"
