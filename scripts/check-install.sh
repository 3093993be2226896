#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# scripts/check-install.sh BUILD_DIR [CC]
#
# CTest's install/pkg-config test: installs BUILD_DIR into a temporary
# prefix, then builds the README example (cmake/install-test/example.c)
# against the installed copy only:
#   1. pkg-config --cflags --libs upcache, linked with the shared library;
#   2. pkg-config --static --libs upcache, linked with libupcache.a;
#   3. find_package(upcache) from a separate CMake project, both targets.
# Each program is run and must print "ok".
set -euo pipefail

build=$(cd "${1:?usage: check-install.sh BUILD_DIR [CC]}" && pwd)
cc=${2:-cc}
src=$(cd "$(dirname "$0")/.." && pwd)
example="$src/cmake/install-test/example.c"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/upcache-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"

step() { echo "check-install: $*"; }

step "cmake --install $build --prefix $prefix --component upcache"
cmake --install "$build" --prefix "$prefix" --component upcache >"$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }

pc=$(find "$prefix" -name upcache.pc -print -quit)
[ -n "$pc" ] || { echo "upcache.pc was not installed" >&2; exit 1; }
libdir=$(dirname "$(dirname "$pc")")
for f in "$libdir/libupcache.a" "$libdir/libupcache.so" "$prefix/include/upcache/xarray.h"; do
	[ -e "$f" ] || { echo "missing after install: $f" >&2; exit 1; }
done
# Exactly the public headers: nothing internal (lib/*.h) leaks out.
if ! diff <(cd "$src/include/upcache" && ls -- *.h) <(cd "$prefix/include/upcache" && ls); then
	echo "installed include/upcache differs from the source's include/upcache/*.h" >&2; exit 1
fi

export PKG_CONFIG_PATH="$libdir/pkgconfig"
cflags=$(pkg-config --cflags upcache)
libs=$(pkg-config --libs upcache)
static_libs=$(pkg-config --static --libs upcache)
step "pkg-config --cflags --libs upcache: $cflags $libs"
step "pkg-config --static --libs upcache: $static_libs"
case " $cflags " in *" -I$prefix/include "*) ;; *) echo "Cflags lack -I$prefix/include" >&2; exit 1;; esac
case " $libs " in *" -L$libdir "*) ;; *) echo "Libs lack -L$libdir" >&2; exit 1;; esac
case " $libs " in *" -lupcache "*) ;; *) echo "Libs lack -lupcache" >&2; exit 1;; esac

step "shared: $cc example.c \$(pkg-config --cflags --libs upcache)"
# shellcheck disable=SC2086
"$cc" -std=gnu11 -Wall -Wextra -Werror $cflags "$example" -o "$tmp/example-shared" $libs
LD_LIBRARY_PATH="$libdir" "$tmp/example-shared" | tee "$tmp/out"
grep -qx ok "$tmp/out"
if command -v ldd >/dev/null 2>&1; then
	# Not "ldd | grep -q": grep exiting first makes ldd die of SIGPIPE,
	# which pipefail reports as a failure.
	deps=$(LD_LIBRARY_PATH="$libdir" ldd "$tmp/example-shared")
	case "$deps" in
	*"$libdir/libupcache.so"*) ;;
	*) echo "example-shared does not use the installed libupcache.so" >&2; exit 1;;
	esac
fi

step "static: $cc example.c libupcache.a \$(pkg-config --static --libs upcache)"
# shellcheck disable=SC2086
"$cc" -std=gnu11 -Wall -Wextra -Werror $cflags "$example" -o "$tmp/example-static" \
	-Wl,-Bstatic -lupcache -Wl,-Bdynamic $(echo " $static_libs " | sed 's/ -lupcache / /')
"$tmp/example-static" | tee "$tmp/out"
grep -qx ok "$tmp/out"

step "find_package(upcache) with CMAKE_PREFIX_PATH=$prefix"
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
cmake -S "$src/cmake/install-test" -B "$tmp/cmake-build" "${gen[@]}" \
	-DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/cmake.log" 2>&1 ||
	{ cat "$tmp/cmake.log"; exit 1; }
cmake --build "$tmp/cmake-build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
LD_LIBRARY_PATH="$libdir" "$tmp/cmake-build/example_shared" | grep -qx ok
"$tmp/cmake-build/example_static" | grep -qx ok

step "ok"
