#!/bin/sh
# Installs the Debian build and test dependencies when any is missing.
# As root it runs apt-get; otherwise it prints the command to run.
PKGS="build-essential pkg-config clang libclang-rt-14-dev libncurses-dev libdw-dev libelf-dev libunwind-dev zlib1g-dev libcapstone-dev libcmocka-dev tmux elfutils debuginfod curl libjemalloc-dev libgoogle-perftools-dev google-perftools golang-go redis-server redis-tools heaptrack sqlite3 python3 perl graphviz libmicrohttpd-dev libzstd-dev libcurl4-openssl-dev chromium"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "missing packages:$missing"
	echo "run: sudo apt-get install -y$missing"
	exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null || {
	echo "apt-get install failed for:$missing"
	exit 1
}
