#!/usr/bin/env bash
# scripts/check-core-symbols.sh LIB... - fail if a core library references any symbol that is not
# defined inside it and not on the allowlist (scripts/core-symbols.allow). This is how the rule
# "no OS calls in core/" is enforced: fopen, open, read, pthread_create, clock_gettime, getenv,
# printf, exit, abort... all show up here as undefined references.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
allow=$(grep -v '^#' "$here/core-symbols.allow" | grep -v '^$' | paste -sd'|')
status=0
for lib in "$@"; do
  nm=nm
  case $lib in *wasi*|*/em/*) nm=llvm-nm-14 ;; esac
  defined=$($nm --defined-only "$lib" 2>/dev/null | awk 'NF>=3 {print $3}' | sort -u)
  undefined=$($nm -u "$lib" 2>/dev/null | awk '{print $NF}' | grep -v ':$' | sort -u)
  bad=$(comm -23 <(echo "$undefined") <(echo "$defined") | grep -v "^$" | grep -Ev "^($allow)$" || true)
  n=$(echo "$undefined" | grep -c . || true)
  if [ -n "$bad" ]; then
    echo "FAIL $lib references symbols outside the allowlist:"
    echo "$bad" | sed 's/^/    /'
    status=1
  else
    echo "ok   $lib: $n undefined symbols, all pure (allowlist)"
  fi
done
exit $status
