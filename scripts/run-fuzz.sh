#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# scripts/run-fuzz.sh BUILD_DIR [SECONDS]
#
# Runs every libFuzzer binary BUILD_DIR/tests/fuzz/fuzz_* (a UPC_FUZZ=ON
# build) for SECONDS (default $FUZZ_TIME or 20) each.  The seed corpus
# tests/fuzz/corpus/<name>/ is copied to a temporary directory, so the
# repository is never modified; new inputs are thrown away.  Crash, leak
# and timeout inputs go to BUILD_DIR/fuzz-artifacts/<name>/: copy one
# into tests/fuzz/corpus/<name>/ to keep it as a regression input.
#
# Environment: FUZZ_TIME, FUZZ_RSS_MB (2048), FUZZ_TIMEOUT (per input,
# 60 s), UPC_SEED (libFuzzer's -seed), FUZZ_ARGS (more libFuzzer flags).
set -euo pipefail

build=${1:?usage: run-fuzz.sh BUILD_DIR [SECONDS]}
secs=${2:-${FUZZ_TIME:-20}}
src=$(cd "$(dirname "$0")/.." && pwd)

shopt -s nullglob
targets=()
for f in "$build"/tests/fuzz/fuzz_*; do
	[ -f "$f" ] && [ -x "$f" ] && targets+=("$f")
done
if [ ${#targets[@]} -eq 0 ]; then
	echo "run-fuzz: no fuzz targets in $build/tests/fuzz (no tests/fuzz/fuzz_*.c yet)"
	exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/upcache-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

failed=0
for bin in "${targets[@]}"; do
	name=$(basename "$bin")
	corpus="$work/$name/corpus"
	artifacts="$(cd "$build" && pwd)/fuzz-artifacts/$name"
	mkdir -p "$corpus" "$artifacts"
	seeds=0
	if [ -d "$src/tests/fuzz/corpus/$name" ]; then
		cp -R "$src/tests/fuzz/corpus/$name/." "$corpus/"
		seeds=$(find "$corpus" -type f | wc -l)
	fi
	opts=(-max_total_time="$secs" -rss_limit_mb="${FUZZ_RSS_MB:-2048}"
	      -timeout="${FUZZ_TIMEOUT:-60}" -print_final_stats=1
	      -artifact_prefix="$artifacts/")
	[ -f "$src/tests/fuzz/$name.dict" ] && opts+=(-dict="$src/tests/fuzz/$name.dict")
	[ -n "${UPC_SEED:-}" ] && opts+=(-seed="$UPC_SEED")
	# shellcheck disable=SC2206
	[ -n "${FUZZ_ARGS:-}" ] && opts+=($FUZZ_ARGS)

	echo "run-fuzz: $name for ${secs}s ($seeds seed inputs)"
	log="$work/$name.log"
	if "$bin" "${opts[@]}" "$corpus" >"$log" 2>&1; then
		grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" | sed 's/^/  /' || true
		echo "run-fuzz: $name: ok"
	else
		rc=$?
		tail -n 80 "$log"
		echo "run-fuzz: $name: FAILED (exit $rc); inputs in $artifacts/" >&2
		failed=$((failed + 1))
	fi
done

echo "run-fuzz: $((${#targets[@]} - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
