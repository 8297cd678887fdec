# bloomkit — the README's commands.
#   make demo    build everything (Release) and run the weak-password demo on real word lists
#   make demo-redis  the cache-penetration guard: the Redis-shared filter in front of a Redis cache
#                and a 1M-row PostgreSQL table, on throwaway servers (examples/cache_guard/)
#   make test    all tests, in developer mode (-Wall -Wextra -Werror): the suite under ASan+UBSan,
#                the concurrency tests again under TSan, a plain build with Clang, and each fuzz
#                target for a few seconds
#   make bench   the benchmark program (Release; speed, space, instructions per call, charts), the command's, its jobs' (filter and exact) and the Redis filter's benchmarks, and Python beside set and flor
#   make fuzz    the fuzz targets, FUZZ_SECONDS each (default 600)
# Each first installs whatever Debian packages are missing (scripts/install-deps.sh).

JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
FUZZ_SECONDS ?= 600
TEST_FUZZ_SECONDS ?= 15
CRASH_TRIALS ?=

.PHONY: all deps release demo demo-redis test test-asan test-tsan test-clang test-fuzz fuzz fuzz-build bench clean

all: release

deps:
	@scripts/install-deps.sh

release: deps
	cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DBLOOMKIT_BUILD_TESTS=OFF $(CMAKE_FLAGS)
	cmake --build build/release -j $(JOBS)

demo: release
	@examples/demo.sh build/release

demo-redis: release
	@examples/cache_guard/run.sh build/release

test: test-asan test-tsan test-clang test-fuzz

# The sanitized builds optimise with -O1 and keep line tables only (-g1): half the compile time of
# -O2 -g on the suite's template-heavy programs, and still the file:line of every report.
SANITIZED_FLAGS = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"

test-asan: deps
	cmake -S . -B build/asan $(SANITIZED_FLAGS) -DBLOOMKIT_DEVELOPER=ON -DBLOOMKIT_SANITIZE=address,undefined \
		-DBLOOMKIT_BUILD_BENCH=OFF -DBLOOMKIT_BUILD_PYTHON=OFF $(CMAKE_FLAGS)
	cmake --build build/asan -j $(JOBS)
	cd build/asan && BLOOMKIT_CRASH_TRIALS=$(CRASH_TRIALS) ctest --output-on-failure --timeout 900 -j $(JOBS)

test-tsan: deps
	cmake -S . -B build/tsan $(SANITIZED_FLAGS) -DBLOOMKIT_DEVELOPER=ON -DBLOOMKIT_SANITIZE=thread \
		-DBLOOMKIT_BUILD_CLI=OFF -DBLOOMKIT_BUILD_BENCH=OFF -DBLOOMKIT_BUILD_EXAMPLES=OFF -DBLOOMKIT_BUILD_PYTHON=OFF \
		$(CMAKE_FLAGS)
	cmake --build build/tsan -j $(JOBS)
	cd build/tsan && ctest --output-on-failure --timeout 900 -L concurrency

# Clang compiles everything a user builds too (warnings are errors): every public header alone,
# the command, the benchmarks, the examples and the Python module; the suite's programs are
# compiled and run under GCC above, the Python tests here (an extension is not built with
# sanitizers, and here it binds the Redis library too).
test-clang: deps
	cmake -S . -B build/clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug -DBLOOMKIT_DEVELOPER=ON \
		-DBLOOMKIT_BUILD_TEST_PROGRAMS=OFF $(CMAKE_FLAGS)
	cmake --build build/clang -j $(JOBS)
	cd build/clang && ctest --output-on-failure -j $(JOBS) -L python

fuzz-build: deps
	cmake -S . -B build/fuzz -DCMAKE_CXX_COMPILER=clang++ $(SANITIZED_FLAGS) -DBLOOMKIT_DEVELOPER=ON \
		-DBLOOMKIT_SANITIZE=address,undefined,fuzzer-no-link -DBLOOMKIT_BUILD_FUZZ=ON -DBLOOMKIT_BUILD_TESTS=OFF \
		-DBLOOMKIT_BUILD_BENCH=OFF -DBLOOMKIT_BUILD_EXAMPLES=OFF -DBLOOMKIT_BUILD_PYTHON=OFF $(CMAKE_FLAGS)
	cmake --build build/fuzz -j $(JOBS) --target fuzz_bkf fuzz_lines fuzz_arguments

test-fuzz: fuzz-build
	tests/fuzz/run.sh build/fuzz $(TEST_FUZZ_SECONDS)

fuzz: fuzz-build
	tests/fuzz/run.sh build/fuzz $(FUZZ_SECONDS)

bench: release
	@scripts/install-deps.sh bench
	build/release/bench/bloomkit_bench $(BENCH_ARGS)
	build/release/bench/bloomkit_bench --space
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

clean:
	rm -rf build
