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

# Every stage of `make test` (and of .ci/run, which passes STAGES) is timed
# by scripts/stages: its seconds, the tests it ran and the compile CPU
# seconds of its build, one row each in $(STAGES); `make test` ends with the
# table when it owns the file.
STAGES ?=
stages_file = $(or $(STAGES),$(BUILD)/stages.tsv)
stage = scripts/stages run $(stages_file)

.PHONY: all deps configure build demo test test-asan build-asan test-tsan build-tsan fuzz build-fuzz clean

all: build

deps:
	@scripts/install-deps

# Note [PTX where no GPU is]
# cuda.so carries sm_90 machine code and compute_90 PTX. Where this machine
# has no GPU (nvidia-smi lists none), nothing here can run the machine code:
# the Makefile's build then compiles PTX alone, which skips ptxas, two thirds
# of nvcc's time (nvcc --time on reduce_sum.cu: ptxas 86 of 130 s). A GPU's driver compiles the
# PTX when the plugin loads. The machine code's own checks (ptxas, every
# kernel on an H200) are scripts/gpu-check's, which builds both; a cmake
# build of your own keeps both by default. CUDA_ARCHITECTURES= (empty) keeps
# CMake's default here too.
CUDA_ARCHITECTURES ?= $(shell nvidia-smi -L 2>/dev/null | grep -q '^GPU' || echo 90-virtual)
cuda_flags = $(if $(CUDA_ARCHITECTURES),"-DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCHITECTURES)")

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release $(cuda_flags) $(CMAKE_FLAGS)

configure: $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/bin/tessera info
	$(BUILD)/bin/tessera demo
	PYTHONPATH=bindings/python TESSERA_LIBRARY=$(BUILD)/lib/libtessera.so /usr/bin/python3 examples/lesson_forward.py

test: deps
	@$(if $(STAGES),,mkdir -p $(BUILD) && rm -f $(stages_file))
	@$(stage) "release: configure + build" $(BUILD) -- $(MAKE) --no-print-directory build
	@$(stage) "release: tests" - -- ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
	@$(if $(STAGES),,scripts/stages table $(stages_file))

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer (the
# kernels without UBSan's per-access checks: Note [Sanitized kernels] in
# cmake/TesseraHelpers.cmake).
build-asan: deps
	cmake -S . -B $(ASAN_BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DTESSERA_SANITIZE=address,undefined $(SANITIZER_FLAGS) $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)

test-asan: deps
	@$(stage) "asan: configure + build" $(ASAN_BUILD) -- $(MAKE) --no-print-directory build-asan
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(stage) "asan: tests" - -- ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

# The threaded tests (ctest label "threaded") under ThreadSanitizer; only
# the runtime, cpu_tbb.so and those programs are built.
TSAN_TARGETS := tessera cpu_tbb test_stress test_autograd_training cuda_emu test_cuda_emu_ops test_cuda_emu_kernels
build-tsan: deps
	cmake -S . -B $(TSAN_BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DTESSERA_SANITIZE=thread $(SANITIZER_FLAGS) $(CMAKE_FLAGS)
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target $(TSAN_TARGETS)

test-tsan: deps
	@$(stage) "tsan: configure + build" $(TSAN_BUILD) -- $(MAKE) --no-print-directory build-tsan
	@TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  $(stage) "tsan: tests" - -- ctest --test-dir $(TSAN_BUILD) -L threaded --output-on-failure -j $(JOBS)

# The libFuzzer targets (tests/fuzz; clang, ASan + UBSan), FUZZ_SECONDS each
# from the seed corpora. fuzz_views and fuzz_safetensors load cpu_tbb.so of $(BUILD).
build-fuzz: configure
	@TESSERA_DEPS_EXTRA="clang libclang-rt-14-dev" scripts/install-deps
	cmake --build $(BUILD) -j $(JOBS) --target cpu_tbb
	cmake -S . -B $(FUZZ_BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
	  -DCMAKE_CXX_COMPILER=clang++ -DTESSERA_FUZZ=ON -DTESSERA_SANITIZE=address,undefined $(SANITIZER_FLAGS) $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_config fuzz_views fuzz_safetensors

fuzz: configure
	@$(stage) "fuzz: configure + build" $(FUZZ_BUILD) -- $(MAKE) --no-print-directory build-fuzz
	@$(stage) "fuzz: run" - -- $(MAKE) --no-print-directory fuzz-run

.PHONY: fuzz-run
fuzz-run:
	tests/fuzz/run_fuzz.sh $(FUZZ_BUILD)/bin/fuzz_config tests/fuzz/corpus/config $(FUZZ_BUILD)/fuzz/config \
	  $(FUZZ_SECONDS) -dict=tests/fuzz/config.dict
	TESSERA_FUZZ_PLUGIN=$(abspath $(BUILD))/lib/tessera/cpu_tbb.so tests/fuzz/run_fuzz.sh $(FUZZ_BUILD)/bin/fuzz_views \
	  tests/fuzz/corpus/views $(FUZZ_BUILD)/fuzz/views $(FUZZ_SECONDS) -max_len=256
	TESSERA_FUZZ_PLUGIN=$(abspath $(BUILD))/lib/tessera/cpu_tbb.so tests/fuzz/run_fuzz.sh \
	  $(FUZZ_BUILD)/bin/fuzz_safetensors tests/fuzz/corpus/safetensors $(FUZZ_BUILD)/fuzz/safetensors \
	  $(FUZZ_SECONDS) -dict=tests/fuzz/safetensors.dict -max_len=4096

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)

# The benchmark suite: Tessera beside PyTorch and NumPy on the same machine,
# interleaved (bench/run.py; figures and targets in bench/RESULTS.md). Builds
# only what it runs; writes $(BUILD)/bench/results.json and prints the ratios.
.PHONY: bench
bench: configure
	cmake --build $(BUILD) -j $(JOBS) --target tessera_bench tessera_tool mpi mpi_allreduce
	/usr/bin/python3 bench/run.py --build $(BUILD)
