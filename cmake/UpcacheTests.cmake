# SPDX-License-Identifier: MIT
#
# Tests, fuzz targets and header tests; included from CMakeLists.txt.
#
# Conventions (docs/building.md):
#  - every tests/<dir>/test_*.c is one executable, linked with the static
#    library, cmocka and every tests/utils/*.c file, and registered with
#    CTest as "<dir>/test_<name>", labelled "<dir>", plus "concurrency"
#    when the file name contains "concurrency" or "stress";
#  - every tests/fuzz/fuzz_*.c defines LLVMFuzzerTestOneInput.  With
#    UPC_FUZZ=ON it is a libFuzzer binary; otherwise it is linked with
#    tests/fuzz/replay_main.c and registered as "fuzz/fuzz_<name>", which
#    replays tests/fuzz/corpus/fuzz_<name>/ (or pseudo-random inputs);
#  - tests/headers/ compiles every public header alone, and all of them
#    together as C and C++.

set(UPC_TESTS_DIR "${PROJECT_SOURCE_DIR}/tests")

pkg_check_modules(UPC_CMOCKA REQUIRED IMPORTED_TARGET cmocka)
find_library(UPC_LIBM m)

# Shared test helpers: an object library, so every file is linked into
# every test even when nothing references it by name.
file(GLOB UPC_TEST_UTIL_SOURCES CONFIGURE_DEPENDS "${UPC_TESTS_DIR}/utils/*.c")
list(SORT UPC_TEST_UTIL_SOURCES)
if(UPC_TEST_UTIL_SOURCES)
	add_library(upc_testutils OBJECT ${UPC_TEST_UTIL_SOURCES})
	target_include_directories(upc_testutils PUBLIC
		"${PROJECT_SOURCE_DIR}/include"
		"${PROJECT_SOURCE_DIR}/lib"
		"${UPC_TESTS_DIR}"
		"${UPC_TESTS_DIR}/utils")
	target_link_libraries(upc_testutils PUBLIC PkgConfig::UPC_CMOCKA)
endif()

# upc_test_link(<target>) - what every test and fuzz executable gets.
function(upc_test_link target)
	target_include_directories(${target} PRIVATE
		"${PROJECT_SOURCE_DIR}"
		"${PROJECT_SOURCE_DIR}/include"
		"${PROJECT_SOURCE_DIR}/lib"
		"${UPC_TESTS_DIR}"
		"${UPC_TESTS_DIR}/utils")
	if(TARGET upc_testutils)
		target_link_libraries(${target} PRIVATE upc_testutils)
	endif()
	target_link_libraries(${target} PRIVATE upcache_static PkgConfig::UPC_CMOCKA
		PkgConfig::UPC_URCU Threads::Threads)
	if(UPC_LIBM)
		target_link_libraries(${target} PRIVATE ${UPC_LIBM})
	endif()
endfunction()

# ---------------------------------------------------------------------
# Unit, regression and concurrency tests
# ---------------------------------------------------------------------

# upc_test_wraps(<target> <source>) - a test that must stand between the
# library and a C library function (to make it fail on cue) says so in
# its opening comment with a line " * Link: -Wl,--wrap=<symbol>"; the
# linker then sends the library's calls of <symbol> to the test's
# __wrap_<symbol>().  Every test source is a configure dependency, so
# that a line added takes effect in an existing build directory, a
# source's first one too (configuring again takes well under a second).
function(upc_test_wraps target src)
	file(STRINGS "${src}" lines REGEX "^ \\* Link: -Wl,--wrap=[A-Za-z0-9_]+$")
	set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${src}")
	foreach(line IN LISTS lines)
		string(REGEX REPLACE "^ \\* Link: " "" option "${line}")
		target_link_options(${target} PRIVATE "${option}")
	endforeach()
endfunction()

# The benchmark's code minus its main(), for tests/bench/.
if(NOT UPC_FUZZ)
	file(GLOB UPC_BENCH_LIB_SOURCES CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tools/bench/*.c")
	list(REMOVE_ITEM UPC_BENCH_LIB_SOURCES "${PROJECT_SOURCE_DIR}/tools/bench/main.c")
	if(UPC_BENCH_LIB_SOURCES)
		add_library(upc_benchlib OBJECT ${UPC_BENCH_LIB_SOURCES})
		target_include_directories(upc_benchlib PUBLIC "${PROJECT_SOURCE_DIR}/tools/bench")
		target_link_libraries(upc_benchlib PUBLIC upcache_static PkgConfig::UPC_URCU Threads::Threads)
	endif()
endif()

if(NOT UPC_FUZZ)
	file(GLOB UPC_TEST_SOURCES CONFIGURE_DEPENDS "${UPC_TESTS_DIR}/*/test_*.c")
	list(SORT UPC_TEST_SOURCES)
	foreach(src IN LISTS UPC_TEST_SOURCES)
		get_filename_component(dir "${src}" DIRECTORY)
		get_filename_component(sub "${dir}" NAME)
		get_filename_component(name "${src}" NAME_WE)
		if(sub STREQUAL "utils" OR sub STREQUAL "fuzz" OR sub STREQUAL "headers")
			continue()
		endif()
		set(target "${sub}_${name}")
		add_executable(${target} "${src}")
		upc_test_link(${target})
		if(sub STREQUAL "bench" AND TARGET upc_benchlib)
			target_link_libraries(${target} PRIVATE upc_benchlib)
		endif()
		upc_test_wraps(${target} "${src}")
		set_target_properties(${target} PROPERTIES
			OUTPUT_NAME "${name}"
			RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/${sub}")
		add_test(NAME "${sub}/${name}" COMMAND ${target})
		set(labels "${sub}")
		if(name MATCHES "concurrency|stress")
			list(APPEND labels concurrency)
		endif()
		set_tests_properties("${sub}/${name}" PROPERTIES
			LABELS "${labels}"
			TIMEOUT ${UPC_TEST_TIMEOUT}
			WORKING_DIRECTORY "${PROJECT_BINARY_DIR}/tests/${sub}")
	endforeach()
endif()

# ---------------------------------------------------------------------
# Fuzz targets
# ---------------------------------------------------------------------

file(GLOB UPC_FUZZ_SOURCES CONFIGURE_DEPENDS "${UPC_TESTS_DIR}/fuzz/fuzz_*.c")
list(SORT UPC_FUZZ_SOURCES)

# The code under test of the targets that fuzz the benchmark: its pure
# parser sources (upc_benchlib, which has them, is not built with
# UPC_FUZZ), compiled into each such target alone.  A target fuzz_X
# lists them in UPC_FUZZ_BENCH_SOURCES_fuzz_X.
set(UPC_FUZZ_BENCH_SOURCES_fuzz_jobfile run_jobfile.c run_cmdline.c
	run_options.c options.c util.c)
set(UPC_FUZZ_BENCH_SOURCES_fuzz_bench_args options.c cmp_args.c)
set(UPC_FUZZ_BENCH_SOURCES_fuzz_bench_sysfiles shm_kernel.c kernel_env.c kernel_disk.c util.c)

foreach(src IN LISTS UPC_FUZZ_SOURCES)
	get_filename_component(name "${src}" NAME_WE)
	if(UPC_FUZZ)
		add_executable(${name} "${src}")
		target_link_options(${name} PRIVATE -fsanitize=fuzzer)
	else()
		add_executable(${name} "${src}" "${UPC_TESTS_DIR}/fuzz/replay_main.c")
	endif()
	upc_test_link(${name})
	if(DEFINED UPC_FUZZ_BENCH_SOURCES_${name})
		list(TRANSFORM UPC_FUZZ_BENCH_SOURCES_${name}
			PREPEND "${PROJECT_SOURCE_DIR}/tools/bench/" OUTPUT_VARIABLE bench_sources)
		target_sources(${name} PRIVATE ${bench_sources})
		target_include_directories(${name} PRIVATE "${PROJECT_SOURCE_DIR}/tools/bench")
	endif()
	set_target_properties(${name} PROPERTIES
		RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/fuzz")
	if(NOT UPC_FUZZ)
		# The corpus directory may not exist; the driver then runs
		# pseudo-random inputs.
		add_test(NAME "fuzz/${name}"
			COMMAND ${name} "${UPC_TESTS_DIR}/fuzz/corpus/${name}")
		set_tests_properties("fuzz/${name}" PROPERTIES
			LABELS fuzz
			TIMEOUT ${UPC_TEST_TIMEOUT})
	endif()
endforeach()

# ---------------------------------------------------------------------
# Header tests and the install test
# ---------------------------------------------------------------------

if(NOT UPC_FUZZ)
	add_subdirectory("${UPC_TESTS_DIR}/headers" "${PROJECT_BINARY_DIR}/tests/headers")

	# The installed copy is what applications see: install into a
	# temporary prefix and build against it with pkg-config and CMake.
	# Not in sanitizer builds, whose libraries need the runtime linked.
	if(NOT UPC_SANITIZE AND UPC_BUILD_SHARED)
		find_program(UPC_BASH bash)
		if(UPC_BASH)
			add_test(NAME install/pkg-config
				COMMAND "${UPC_BASH}" "${PROJECT_SOURCE_DIR}/scripts/check-install.sh"
					"${PROJECT_BINARY_DIR}" "${CMAKE_C_COMPILER}")
			set_tests_properties(install/pkg-config PROPERTIES
				LABELS install
				TIMEOUT ${UPC_TEST_TIMEOUT})
		endif()
	endif()
endif()
