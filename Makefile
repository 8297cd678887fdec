# bloomkit — the README's commands.
#   make demo    build everything (Release) and run the weak-password demo on real word lists
#   make demo-redis  the cache-penetration guard: the Redis-shared filter in front of a Redis cache
#                and a 1M-row PostgreSQL table, on throwaway servers (examples/cache_guard/)
#   make test    all tests, in developer mode (-Wall -Wextra -Werror): the suite under ASan+UBSan
#                (Clang) with each fuzz target for a few seconds, the concurrency tests again under
#                TSan, and a plain build of everything with GCC running the Python tests
#   make bench   the benchmark program (Release; speed, space, instructions per call, charts), the command's, its jobs' (filter and exact) and the Redis filter's benchmarks, Python beside set and flor, and bloomkit.dask beside dd.merge
#   make fuzz    the fuzz targets, FUZZ_SECONDS each (default 600)
#   make package the Debian package: build/package/bloomkit_<version>_<arch>.deb (the command, the
#                Redis module, man pages, completions, headers, bloomkit::redis, CMake and pkg-config
#                files, for /usr)
#   make docs    the API reference of include/bloomkit/ (Doxygen, docs/api/) in build/docs/html;
#                fails on any Doxygen warning, such as a public name without its /// comment.
# Each first installs the Debian packages it needs that are missing (scripts/install-deps.sh, given
# what the target is for: command, demo, redis-demo, package, docs, test or bench).

# Two jobs per core and two more: a compile or a test waiting on its disk or its server leaves a
# core idle otherwise, and on a machine busy with other work the share of the CPU follows the number
# of runnable jobs.
JOBS ?= $(shell echo $$(( 2 * $$(nproc) + 2 )))
CMAKE_FLAGS ?=
FUZZ_SECONDS ?= 600
TEST_FUZZ_SECONDS ?= 10
CRASH_TRIALS ?=

.PHONY: all deps release demo demo-redis package test test-asan test-tsan test-gcc fuzz fuzz-build bench docs clean

all: release

# What `deps` installs: each target below says what it is for (make passes a target's variables
# on to its prerequisites).
DEPS = command
demo: DEPS = demo
demo-redis: DEPS = redis-demo
package: DEPS = package
docs: DEPS = docs
test test-asan test-tsan test-gcc fuzz fuzz-build: DEPS = test
bench: DEPS = bench

deps:
	@scripts/install-deps.sh $(DEPS)

release: deps
	cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DBLOOMKIT_BUILD_TESTS=OFF $(CMAKE_FLAGS)
	cmake --build build/release -j $(JOBS)

demo: release
	@examples/demo.sh build/release

demo-redis: release
	@examples/cache_guard/run.sh build/release

# Release, for /usr, with only what the package holds; cpack then makes the .deb (tests/install/
# check_package.sh checks the same package of make test's GCC build).
package: deps
	cmake -S . -B build/package -DCMAKE_BUILD_TYPE=Release -DBLOOMKIT_BUILD_REDIS=ON -DBLOOMKIT_BUILD_TESTS=OFF \
		-DBLOOMKIT_BUILD_BENCH=OFF -DBLOOMKIT_BUILD_EXAMPLES=OFF -DBLOOMKIT_BUILD_PYTHON=OFF $(CMAKE_FLAGS)
	cmake --build build/package -j $(JOBS)
	cd build/package && cpack

test: test-asan test-tsan test-gcc

# Sanitized builds optimise the libraries and the command with -O1 and keep line tables only
# (-g1): half the compile time of -O2 -g, and still the file:line of every report. make test's ASan
# build compiles the suite's own programs at -O0 (BLOOMKIT_TEST_PROGRAM_OPTIONS): they are most of
# its compiling and run in seconds unoptimised, where the command the scripts run over and over
# is several times slower unoptimised (tests/CMakeLists.txt optimises the one program that counts
# millions of keys).
SANITIZED_FLAGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"

# Clang under ASan+UBSan: the suite, the command, the Redis module and the examples, then each
# fuzz target for TEST_FUZZ_SECONDS from its corpus (built in the same tree: tests/fuzz/CMakeLists.txt).
test-asan: deps
	cmake -S . -B build/asan -DCMAKE_CXX_COMPILER=clang++ $(SANITIZED_FLAGS) -DBLOOMKIT_TEST_PROGRAM_OPTIONS=-O0 \
		-DBLOOMKIT_DEVELOPER=ON -DBLOOMKIT_SANITIZE=address,undefined -DBLOOMKIT_BUILD_FUZZ=ON \
		-DBLOOMKIT_BUILD_BENCH=OFF -DBLOOMKIT_BUILD_EXAMPLES=ON -DBLOOMKIT_BUILD_PYTHON=OFF $(CMAKE_FLAGS)
	cmake --build build/asan -j $(JOBS)
	cd build/asan && BLOOMKIT_CRASH_TRIALS=$(CRASH_TRIALS) ctest --output-on-failure --timeout 900 -j $(JOBS)
	tests/fuzz/run.sh build/asan $(TEST_FUZZ_SECONDS)

# GCC under TSan: the concurrency tests.
test-tsan: deps
	cmake -S . -B build/tsan $(SANITIZED_FLAGS) -DBLOOMKIT_DEVELOPER=ON -DBLOOMKIT_SANITIZE=thread \
		-DBLOOMKIT_BUILD_CLI=OFF -DBLOOMKIT_BUILD_REDIS=OFF -DBLOOMKIT_BUILD_REDIS_MODULE=OFF -DBLOOMKIT_BUILD_BENCH=OFF \
		-DBLOOMKIT_BUILD_EXAMPLES=OFF -DBLOOMKIT_BUILD_PYTHON=OFF $(CMAKE_FLAGS)
	cmake --build build/tsan -j $(JOBS)
	cd build/tsan && ctest --output-on-failure --timeout 900 -L concurrency

# GCC builds everything a user builds, as a user types it (no build type; warnings are errors):
# every public header alone, the command, the Redis module, the benchmarks, the examples and the
# Python module. It runs what needs an unsanitized build: the Python tests (an extension is not
# built with sanitizers, and here it binds the Redis library too), the install and package checks,
# and the exact jobs' peak RSS (tests/cli/memory.sh: a sanitizer inflates RSS).
test-gcc: deps
	cmake -S . -B build/gcc -DCMAKE_CXX_COMPILER=g++ -DBLOOMKIT_DEVELOPER=ON -DBLOOMKIT_BUILD_TEST_PROGRAMS=OFF $(CMAKE_FLAGS)
	cmake --build build/gcc -j $(JOBS)
	cd build/gcc && ctest --output-on-failure -j $(JOBS) -L 'python|install|memory'

fuzz-build: deps
	cmake -S . -B build/fuzz -DCMAKE_CXX_COMPILER=clang++ $(SANITIZED_FLAGS) -DBLOOMKIT_DEVELOPER=ON \
		-DBLOOMKIT_SANITIZE=address,undefined,fuzzer-no-link -DBLOOMKIT_BUILD_FUZZ=ON -DBLOOMKIT_BUILD_TESTS=OFF -DBLOOMKIT_BUILD_REDIS_MODULE=OFF \
		-DBLOOMKIT_BUILD_BENCH=OFF -DBLOOMKIT_BUILD_EXAMPLES=OFF -DBLOOMKIT_BUILD_PYTHON=OFF $(CMAKE_FLAGS)
	cmake --build build/fuzz -j $(JOBS) --target fuzz_bkf fuzz_lines fuzz_arguments

fuzz: fuzz-build
	tests/fuzz/run.sh build/fuzz $(TEST_FUZZ_SECONDS)

fuzz: fuzz-build
	tests/fuzz/run.sh build/fuzz $(FUZZ_SECONDS)

bench: release
	build/release/bench/bloomkit_bench $(BENCH_ARGS)
	build/release/bench/bloomkit_bench --space
	if [ -x build/release/bench/peer_bench ]; then build/release/bench/peer_bench; \
	else echo "peer_bench not built: no peers folder (BLOOMKIT_BENCH_PEERS)"; fi
	build/release/bench/single_call_anatomy --n 1e7
	build/release/bench/single_call_anatomy --n 1e8
	bench/instructions.sh build/release
	bench/plots.sh build/release
	bench/cli_throughput.sh build/release
	bench/jobs.sh build/release
	bench/exact.sh build/release
	bench/foreign.sh build/release
	bench/redis.sh build/release
	PYTHONPATH=build/release/python /usr/bin/python3 bench/python_bench.py 1e6 1e8
	PYTHONPATH=build/release/python /usr/bin/python3 bench/python_bench.py 1e7 0
	PYTHONPATH=build/release/python /usr/bin/python3 bench/dask_bench.py

# The same check as the ctest test api_reference (tests/docs/check_api_reference.sh), into a
# folder that stays. The old pages go first: a header removed leaves none behind.
docs: deps
	rm -rf build/docs/html
	BLOOMKIT_DOCS_DIR=build/docs doxygen docs/api/Doxyfile
	@echo "the API reference: build/docs/html/index.html"

clean:
	rm -rf build
