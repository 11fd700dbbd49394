# SPDX-License-Identifier: Apache-2.0
# The two commands of the README: `make demo` and `make test`. Each installs
# what is missing (Debian packages), configures, builds and runs.
BUILD ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
JOBS ?= $(shell nproc)
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
CMAKE_FLAGS ?=
# The sanitizer builds check host code: no CUDA (nvcc objects cannot be
# instrumented) and no benchmarks.
SANITIZER_FLAGS := -DTESSERA_CUDA=OFF -DTESSERA_BUILD_BENCH=OFF

.PHONY: all deps configure build demo test test-asan test-tsan fuzz clean

all: build

deps:
	@scripts/install-deps

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

configure: $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/bin/tessera info
	$(BUILD)/bin/tessera demo
	PYTHONPATH=bindings/python TESSERA_LIBRARY=$(BUILD)/lib/libtessera.so /usr/bin/python3 examples/lesson_forward.py

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer (the
# kernels without UBSan's per-access checks: Note [Sanitized kernels] in
# cmake/TesseraHelpers.cmake).
test-asan: deps
	cmake -S . -B $(ASAN_BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DTESSERA_SANITIZE=address,undefined $(SANITIZER_FLAGS) $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

# The threaded tests (ctest label "threaded") under ThreadSanitizer; only
# the runtime, cpu_tbb.so and those programs are built.
TSAN_TARGETS := tessera cpu_tbb test_stress cuda_emu test_cuda_emu_ops test_cuda_emu_kernels
test-tsan: deps
	cmake -S . -B $(TSAN_BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DTESSERA_SANITIZE=thread $(SANITIZER_FLAGS) $(CMAKE_FLAGS)
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target $(TSAN_TARGETS)
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ctest --test-dir $(TSAN_BUILD) -L threaded --output-on-failure -j $(JOBS)

# The libFuzzer targets (tests/fuzz; clang, ASan + UBSan), FUZZ_SECONDS each
# from the seed corpora. fuzz_views loads cpu_tbb.so of $(BUILD).
fuzz: configure
	@TESSERA_DEPS_EXTRA="clang libclang-rt-14-dev" scripts/install-deps
	cmake --build $(BUILD) -j $(JOBS) --target cpu_tbb
	cmake -S . -B $(FUZZ_BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
	  -DCMAKE_CXX_COMPILER=clang++ -DTESSERA_FUZZ=ON -DTESSERA_SANITIZE=address,undefined $(SANITIZER_FLAGS) $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_config fuzz_views
	tests/fuzz/run_fuzz.sh $(FUZZ_BUILD)/bin/fuzz_config tests/fuzz/corpus/config $(FUZZ_BUILD)/fuzz/config \
	  $(FUZZ_SECONDS) -dict=tests/fuzz/config.dict
	TESSERA_FUZZ_PLUGIN=$(abspath $(BUILD))/lib/tessera/cpu_tbb.so tests/fuzz/run_fuzz.sh $(FUZZ_BUILD)/bin/fuzz_views \
	  tests/fuzz/corpus/views $(FUZZ_BUILD)/fuzz/views $(FUZZ_SECONDS) -max_len=256

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)

# The benchmark suite: Tessera beside PyTorch and NumPy on the same machine,
# interleaved (bench/run.py; figures and targets in bench/RESULTS.md). Builds
# only what it runs; writes $(BUILD)/bench/results.json and prints the ratios.
.PHONY: bench
bench: configure
	cmake --build $(BUILD) -j $(JOBS) --target tessera_bench tessera_tool mpi mpi_allreduce
	/usr/bin/python3 bench/run.py --build $(BUILD)
