#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# scripts/cmake-configure.sh DIR CC CXX [cmake -D options...]
#
# Configures (or re-configures) build directory DIR with Ninja and the
# given compilers.  A directory configured earlier with another C
# compiler is wiped first, since CMake cannot switch compilers in place.
set -euo pipefail

dir=$1 cc=$2 cxx=$3
shift 3

want_cc=$(command -v "$cc" || true)
if [ -z "$want_cc" ]; then
	echo "cmake-configure: C compiler '$cc' not found" >&2
	exit 1
fi
if [ -f "$dir/CMakeCache.txt" ]; then
	have_cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$dir/CMakeCache.txt")
	if [ "$(readlink -f "$have_cc" 2>/dev/null)" != "$(readlink -f "$want_cc")" ]; then
		echo "cmake-configure: $dir was configured with $have_cc; starting over with $want_cc"
		rm -rf "$dir"
	fi
fi

args=(-S . -B "$dir" "$@")
if [ ! -f "$dir/CMakeCache.txt" ]; then
	args+=(-G Ninja -DCMAKE_C_COMPILER="$want_cc")
	if command -v "$cxx" >/dev/null 2>&1; then
		args+=(-DCMAKE_CXX_COMPILER="$(command -v "$cxx")")
	fi
fi
exec cmake "${args[@]}"
