#!/bin/sh
# Installs the lembas binary for this machine. First version: the release issue adds checksums,
# every platform and the service. Usage: curl -fsSL <base>/install.sh | sh
set -eu

base="${LEMBAS_INSTALL_BASE:-https://llembas.app/download/cli/latest}"
dir="${LEMBAS_INSTALL_DIR:-$HOME/.local/bin}"

die() { printf 'lembas install: %s\n' "$1" >&2; exit 1; }

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) die "no lembas build for $(uname -s)" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "no lembas build for $(uname -m)" ;;
esac

mkdir -p "$dir"
tmp="$dir/.lembas.$$.tmp"
trap 'rm -f "$tmp"' EXIT
curl -fsSL "$base/lembas-$os-$arch" -o "$tmp" || die "could not download $base/lembas-$os-$arch"
chmod 0755 "$tmp"
mv -f "$tmp" "$dir/lembas"
printf 'installed %s\n' "$dir/lembas"
case ":$PATH:" in
  *":$dir:"*) ;;
  *) printf 'add it to your PATH: export PATH="%s:$PATH"\n' "$dir" ;;
esac
