# bloomkit — the README's commands.
#   make demo    build everything (Release) and run the weak-password demo on real word lists
#   make test    all tests: -Wall -Wextra -Werror under ASan+UBSan, concurrency again under TSan
#   make bench   the benchmark program (Release)
# Each first installs whatever Debian packages are missing (scripts/install-deps.sh).

JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps release demo test test-asan test-tsan bench clean

all: release

deps:
	@scripts/install-deps.sh

release: deps
	cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DBLOOMKIT_BUILD_TESTS=OFF $(CMAKE_FLAGS)
	cmake --build build/release -j $(JOBS)

demo: release
	@examples/demo.sh build/release

test: test-asan test-tsan

test-asan: deps
	cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLOOMKIT_DEVELOPER=ON -DBLOOMKIT_SANITIZE=address,undefined \
		-DBLOOMKIT_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build build/asan -j $(JOBS)
	cd build/asan && ctest --output-on-failure --timeout 900

test-tsan: deps
	cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBLOOMKIT_DEVELOPER=ON -DBLOOMKIT_SANITIZE=thread \
		-DBLOOMKIT_BUILD_CLI=OFF -DBLOOMKIT_BUILD_BENCH=OFF -DBLOOMKIT_BUILD_EXAMPLES=OFF $(CMAKE_FLAGS)
	cmake --build build/tsan -j $(JOBS)
	cd build/tsan && ctest --output-on-failure --timeout 900 -L concurrency

bench: release
	@scripts/install-deps.sh bench
	build/release/bench/bloomkit_bench $(BENCH_ARGS)
	bench/cli_throughput.sh build/release

clean:
	rm -rf build
