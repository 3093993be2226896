# SPDX-License-Identifier: MIT
#
# upcache - convenience targets around CMake + Ninja (docs/building.md).
#
#   make            build/ (RelWithDebInfo: -O2 -g, assertions on)
#   make test       deps, then: build/ + ctest; build-asan/ (clang,
#                   ASan+UBSan) + ctest; build-tsan/ (gcc, TSan) +
#                   ctest -L concurrency; build-fuzz/ (clang, libFuzzer)
#                   + a short bounded run of every fuzz target
#   make bench      deps, build-release/ (-O2 -DNDEBUG), run every seed
#                   experiment (upcache-bench seeds --quick) into
#                   results/seed-*.json (+ .png charts)
#   make stress     long differential/stress/fuzz runs
#   make install    install build-release/ into PREFIX (DESTDIR honoured)
#   make clean      remove every build directory
#
# Variables: CC (gcc), CXX, ASAN_CC (clang), TSAN_CC (gcc), FUZZ_CC
# (clang), CTEST_JOBS (2), FUZZ_TIME (20),
# STRESS_FUZZ_TIME (600), UPC_DIFF_OPS, UPC_SEED, PREFIX (/usr/local),
# UPC_SKIP_DEPS=1 (do not run scripts/install-deps.sh).

SHELL := /bin/bash
.DEFAULT_GOAL := all

ifeq ($(origin CC),default)
CC := gcc
endif
ifeq ($(origin CXX),default)
ifneq ($(findstring clang,$(CC)),)
CXX := clang++
else
CXX := g++
endif
endif
ASAN_CC ?= clang
ASAN_CXX ?= clang++
TSAN_CC ?= gcc
TSAN_CXX ?= g++
FUZZ_CC ?= clang
FUZZ_CXX ?= clang++

BUILD ?= build
CTEST_JOBS ?= 2
FUZZ_TIME ?= 20
STRESS_FUZZ_TIME ?= 600
STRESS_DIFF_OPS ?= 50000000
TEST_TIMEOUT ?= 600
PREFIX ?= /usr/local

CONFIGURE := scripts/cmake-configure.sh
CTEST := ctest --output-on-failure -j$(CTEST_JOBS)

# Sanitizer runtime options; a value already in the environment wins.
export ASAN_OPTIONS ?= detect_leaks=1:check_initialization_order=1:strict_init_order=1
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS ?= halt_on_error=1:second_deadlock_stack=1:history_size=4:suppressions=$(CURDIR)/scripts/tsan.supp
export LSAN_OPTIONS ?= suppressions=$(CURDIR)/scripts/lsan.supp

# TSan needs a fixed memory layout on kernels with large ASLR entropy.
TSAN_RUN := $$(setarch "$$(uname -m)" -R true 2>/dev/null && echo setarch "$$(uname -m)" -R)

.PHONY: all build build-asan build-tsan build-fuzz deps test test-unit test-asan test-tsan test-fuzz \
	bench release stress install clean

all: build

deps:
ifneq ($(UPC_SKIP_DEPS),1)
	@bash scripts/install-deps.sh
endif

# ---- normal build -------------------------------------------------------

build:
	@$(CONFIGURE) $(BUILD) $(CC) $(CXX) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DUPC_TEST_TIMEOUT=$(TEST_TIMEOUT)
	ninja -C $(BUILD)

test-unit: build
	cd $(BUILD) && $(CTEST) --no-tests=error

# ---- sanitizer builds ----------------------------------------------------

build-asan:
	@$(CONFIGURE) build-asan $(ASAN_CC) $(ASAN_CXX) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DUPC_SANITIZE=address -DUPC_BUILD_SHARED=OFF -DUPC_TEST_TIMEOUT=$(TEST_TIMEOUT)
	ninja -C build-asan

test-asan: build-asan
	cd build-asan && $(CTEST) --no-tests=error

build-tsan:
	@$(CONFIGURE) build-tsan $(TSAN_CC) $(TSAN_CXX) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DUPC_SANITIZE=thread -DUPC_BUILD_SHARED=OFF -DUPC_BUILD_BENCH=OFF \
		-DUPC_TEST_TIMEOUT=$(TEST_TIMEOUT)
	ninja -C build-tsan

test-tsan: build-tsan
	cd build-tsan && $(TSAN_RUN) $(CTEST) -L concurrency --no-tests=ignore

# ---- fuzzing ---------------------------------------------------------------

build-fuzz:
	@$(CONFIGURE) build-fuzz $(FUZZ_CC) $(FUZZ_CXX) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUPC_FUZZ=ON
	ninja -C build-fuzz

test-fuzz:
	@if command -v $(FUZZ_CC) >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory build-fuzz && \
		bash scripts/run-fuzz.sh build-fuzz $(FUZZ_TIME); \
	else \
		echo "test-fuzz: $(FUZZ_CC) not found; fuzz targets ran only as replay tests"; \
	fi

# ---- the full suite --------------------------------------------------------

# Sequential on purpose: each step already uses both cores.
test: deps
	@$(MAKE) --no-print-directory test-unit
	@$(MAKE) --no-print-directory test-asan
	@$(MAKE) --no-print-directory test-tsan
	@$(MAKE) --no-print-directory test-fuzz
	@echo "make test: all steps passed"

stress: deps
	@$(MAKE) --no-print-directory build TEST_TIMEOUT=0
	cd $(BUILD) && UPC_DIFF_OPS=$(STRESS_DIFF_OPS) UPC_FUZZ_REPLAY_RUNS=100000 \
		$(CTEST) --no-tests=error
	@$(MAKE) --no-print-directory build-tsan TEST_TIMEOUT=0
	cd build-tsan && $(TSAN_RUN) $(CTEST) -L concurrency --no-tests=ignore --repeat until-fail:5
	@$(MAKE) --no-print-directory test-fuzz FUZZ_TIME=$(STRESS_FUZZ_TIME)

# ---- benchmark and install -------------------------------------------------

release:
	@$(CONFIGURE) build-release $(CC) $(CXX) -DCMAKE_BUILD_TYPE=Release -DUPC_BUILD_TESTS=OFF
	ninja -C build-release

# The main job: every seed experiment, quick sizes (a few minutes).
bench: deps release
	./build-release/upcache-bench seeds --quick --out results
	@if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then \
		/usr/bin/python3 tools/plot/plot_seeds.py results/seed-*.json \
			--out-dir results; \
		echo "make bench: tables and JSON in results/seed-*.{txt,json}," \
			"charts in results/seed-*.png"; \
	else \
		echo "make bench: tables and JSON in results/seed-*.{txt,json}" \
			"(no charts: python3-matplotlib missing)"; \
	fi

install: release
	cmake --install build-release --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz build-release
