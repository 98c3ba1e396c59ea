#!/usr/bin/env bash
# Installs the Debian packages the build needs, by name, when missing.
# Usage: scripts/deps.sh [test|bench]
set -euo pipefail
need=(clang-19 lld-19 cmake ninja-build make)
case "${1:-test}" in
  bench) need+=(libuv1-dev librust-tokio-dev valgrind cargo) ;;
esac
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# cargo may come from rustup instead of Debian
if [[ " ${missing[*]} " == *" cargo "* ]] && command -v cargo >/dev/null 2>&1; then
  missing=("${missing[@]/cargo}")
fi
missing=($(printf '%s\n' "${missing[@]}" | grep -v '^$' || true))
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 || {
  $SUDO apt-get update -q >/dev/null
  $SUDO apt-get install -y -q "${missing[@]}" >/dev/null
}
