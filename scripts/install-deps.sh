#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# scripts/install-deps.sh - install the Debian packages upcache needs.
#
# Idempotent: checks each package with dpkg-query and runs apt-get (and
# apt-get update) only when something is missing.  As root it installs
# directly; otherwise through sudo if there is one; otherwise it prints
# what to install and fails.  UPC_SKIP_DEPS=1 skips it (make honours it).
set -euo pipefail

# Needed to build and run `make test`.
required=(
	make cmake ninja-build gcc g++ clang
	libclang-rt-14-dev	# clang's sanitizer runtimes and libFuzzer
	liburcu-dev libcmocka-dev liburing-dev pkg-config
	python3
)
# Nice to have: the benchmark's PNG plots.
optional=(python3-matplotlib)

missing_from() {
	local p
	for p in "$@"; do
		if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
			printf '%s\n' "$p"
		fi
	done
}

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "install-deps: not a Debian system; install by hand: ${required[*]} ${optional[*]}" >&2
	exit 1
fi

mapfile -t need < <(missing_from "${required[@]}")
mapfile -t want < <(missing_from "${optional[@]}")
if [ ${#need[@]} -eq 0 ] && [ ${#want[@]} -eq 0 ]; then
	echo "install-deps: all packages present"
	exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
	as_root=()
elif command -v sudo >/dev/null 2>&1; then
	as_root=(sudo)
else
	echo "install-deps: missing packages and not root (no sudo):" >&2
	echo "  apt-get install ${need[*]} ${want[*]}" >&2
	[ ${#need[@]} -eq 0 ] && exit 0
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${need[*]} ${want[*]}"
"${as_root[@]}" apt-get update -q
if [ ${#need[@]} -gt 0 ]; then
	"${as_root[@]}" apt-get install -y -q --no-install-recommends "${need[@]}"
fi
if [ ${#want[@]} -gt 0 ]; then
	"${as_root[@]}" apt-get install -y -q --no-install-recommends "${want[@]}" ||
		echo "install-deps: optional ${want[*]} not installed (plots disabled)" >&2
fi

mapfile -t still < <(missing_from "${required[@]}")
if [ ${#still[@]} -gt 0 ]; then
	echo "install-deps: still missing: ${still[*]}" >&2
	exit 1
fi
