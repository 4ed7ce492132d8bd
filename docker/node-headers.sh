#!/bin/sh
# Usage: node-headers DIR
# Makes DIR a node-gyp `nodedir` (DIR/include/node/common.gypi) for the running Node, so the native
# SQLite module compiles without downloading headers: build hosts may have no route to nodejs.org.
# Official node images ship the headers next to the binary; otherwise Debian's libnode-dev of the
# same major version (same ABI) provides them.
set -eu
dir=$1
prefix=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
if [ -f "$prefix/include/node/common.gypi" ]; then
  ln -sfn "$prefix" "$dir"
  exit 0
fi
major=$(node -p 'process.versions.node.split(".")[0]')
case "$major" in
  18) suite=bookworm ;;
  20) suite=trixie ;;
  *) echo "node-headers: no Debian headers known for Node $major" >&2; exit 1 ;;
esac
work=$(mktemp -d)
mkdir -p "$work/lists/partial" "$work/archives/partial"
echo "deb http://deb.debian.org/debian $suite main" > "$work/sources.list"
apt_opts="-o Dir::Etc::sourcelist=$work/sources.list -o Dir::Etc::sourceparts=- -o Dir::State::Lists=$work/lists -o Dir::Cache::Archives=$work/archives"
# shellcheck disable=SC2086
apt-get $apt_opts update -qq
# shellcheck disable=SC2086
(cd "$work" && apt-get $apt_opts download -qq libnode-dev)
mkdir -p "$dir"
dpkg -x "$work"/libnode-dev_*.deb "$work/x"
mkdir -p "$dir/include"
cp -r "$work/x/usr/include/node" "$dir/include/node"
rm -rf "$work"
