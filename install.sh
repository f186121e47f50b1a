#!/bin/sh
# Installs the lembas binary for this machine.
#
#   curl -fsSL https://llembas.app/download/cli/latest/install.sh | sh
#   curl -fsSL https://llembas.app/download/cli/latest/install.sh | sh -s -- --service
#
# Downloads lembas-<os>-<arch> and SHA256SUMS from $LEMBAS_INSTALL_BASE, checks the checksum, and
# puts the binary at $LEMBAS_INSTALL_DIR/lembas (default ~/.local/bin) by an atomic rename, so a
# running lembas service keeps running the old file until it restarts. Any failure leaves nothing
# behind and the old binary as it was. With --service it then runs `lembas service install`.
#
# Settings (environment):
#   LEMBAS_INSTALL_BASE   where the files are (default https://llembas.app/download/cli/latest)
#   LEMBAS_INSTALL_DIR    where lembas goes (default ~/.local/bin)
#   LEMBAS_INSTALL_OS, LEMBAS_INSTALL_ARCH, LEMBAS_INSTALL_LIBC
#                         override detection: linux | darwin, x64 | arm64, glibc | musl
set -eu

base="${LEMBAS_INSTALL_BASE:-https://llembas.app/download/cli/latest}"
dir="${LEMBAS_INSTALL_DIR:-$HOME/.local/bin}"
service=no
work=""
staged=""

die() {
  printf 'lembas install: %s\n' "$1" >&2
  exit 1
}

cleanup() {
  if [ -n "$staged" ]; then rm -f "$staged"; fi
  if [ -n "$work" ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for arg in "$@"; do
  case "$arg" in
    --service) service=yes ;;
    -h | --help)
      printf 'usage: install.sh [--service]\n  --service  also run "lembas service install" (start lembas at login, keep it running)\n'
      exit 0
      ;;
    *) die "unknown option $arg (the only option is --service)" ;;
  esac
done

detect_os() {
  raw="${LEMBAS_INSTALL_OS:-$(uname -s)}"
  case "$raw" in
    Linux | linux) echo linux ;;
    Darwin | darwin) echo darwin ;;
    *) return 1 ;;
  esac
}

detect_arch() {
  raw="${LEMBAS_INSTALL_ARCH:-$(uname -m)}"
  # An x64 shell on Apple silicon runs under Rosetta: the native build is the better one.
  if [ -z "${LEMBAS_INSTALL_ARCH:-}" ] && [ "$os" = darwin ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
    raw=arm64
  fi
  case "$raw" in
    x86_64 | amd64 | x64) echo x64 ;;
    aarch64 | arm64) echo arm64 ;;
    *) return 1 ;;
  esac
}

detect_libc() {
  if [ -n "${LEMBAS_INSTALL_LIBC:-}" ]; then
    echo "$LEMBAS_INSTALL_LIBC"
  elif [ -f /etc/alpine-release ] || ldd --version 2>&1 | grep -qi musl; then
    echo musl
  else
    echo glibc
  fi
}

# download URL FILE: curl or wget; what went wrong is kept in $work/download.err for the message.
download() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL "$1" -o "$2" 2>"$work/download.err"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1" 2>"$work/download.err"
  else
    die "neither curl nor wget is installed: install one of them and run this again"
  fi
}

# The download's error, as " (…)" to end a message with, or nothing.
why() {
  if [ -s "$work/download.err" ]; then printf ' (%s)' "$(tail -n 1 "$work/download.err")"; fi
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  else
    die "neither sha256sum nor shasum is installed, so the download cannot be checked: install one of them and run this again"
  fi
}

os="$(detect_os)" || die "there is no lembas build for the system ${LEMBAS_INSTALL_OS:-$(uname -s)} (only Linux and macOS)"
arch="$(detect_arch)" || die "there is no lembas build for the processor ${LEMBAS_INSTALL_ARCH:-$(uname -m)} (only x64 and arm64)"
name="lembas-$os-$arch"
if [ "$os" = linux ]; then
  case "$(detect_libc)" in
    musl) name="$name-musl" ;;
    glibc) ;;
    *) die "LEMBAS_INSTALL_LIBC must be glibc or musl, not $LEMBAS_INSTALL_LIBC" ;;
  esac
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/lembas-install.XXXXXX")" || die "could not make a temporary directory in ${TMPDIR:-/tmp}"
download "$base/$name" "$work/$name" || die "could not download $base/$name$(why)"
download "$base/SHA256SUMS" "$work/SHA256SUMS" || die "could not download $base/SHA256SUMS$(why)"

expected="$(awk -v n="$name" '$2 == n || $2 == "*" n { print $1; exit }' "$work/SHA256SUMS")"
[ -n "$expected" ] || die "$base/SHA256SUMS has no line for $name"
actual="$(sha256 "$work/$name")" || exit 1
[ "$actual" = "$expected" ] || die "the checksum of $name is wrong (the download is damaged or was tampered with): nothing was installed"

# Staged beside its destination (a rename within one file system is atomic), and tried there
# before it replaces anything: a binary that cannot run here never takes the old one's place.
mkdir -p "$dir" || die "could not create $dir"
staged="$(mktemp "$dir/.lembas.XXXXXX")" || die "could not write to $dir"
cp "$work/$name" "$staged" || die "could not write to $dir"
chmod 0755 "$staged"
if ! "$staged" --version >/dev/null 2>"$work/run.err"; then
  hint=""
  case "$name" in *-musl) hint=" (on Alpine: apk add libstdc++ libgcc)" ;; esac
  die "the downloaded $name does not run on this machine: $(head -n 1 "$work/run.err")$hint"
fi
mv -f "$staged" "$dir/lembas" || die "could not replace $dir/lembas"
staged=""

printf 'installed %s (%s)\n' "$dir/lembas" "$("$dir/lembas" --version)"
case ":${PATH:-}:" in
  *":$dir:"*) ;;
  *)
    case "${SHELL:-}" in
      */zsh) rc="$HOME/.zshrc" ;;
      */bash) rc="$HOME/.bashrc" ;;
      *) rc="$HOME/.profile" ;;
    esac
    case "${SHELL:-}" in
      */fish) printf '%s is not on your PATH: run  fish_add_path %s\n' "$dir" "$dir" ;;
      *) printf "%s is not on your PATH: run  echo 'export PATH=\"%s:\$PATH\"' >> %s  and open a new shell\n" "$dir" "$dir" "$rc" ;;
    esac
    ;;
esac

if [ "$service" = yes ]; then
  "$dir/lembas" service install || die "lembas is installed, but lembas service install failed: see the line above"
else
  printf 'to run it as a service (needed for the web UI): lembas service install\n'
fi
