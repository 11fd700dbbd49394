# SPDX-License-Identifier: Apache-2.0
# Warnings as errors for the project's own code (never for third-party headers).
# GCC 12 at -O2/-O3 reports false positives inside libstdc++: -Wrestrict on
# `"literal" + std::string&&` (GCC bug 105329) and -Warray-bounds on
# vector::push_back after insert (GCC bug 107852). Both are off for GCC; the
# sanitizer build checks bounds for real.
function(tessera_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Werror>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-restrict -Wno-array-bounds>
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Werror>)
endfunction()

# A device plugin: a MODULE library named NAME.so (no lib prefix) in the
# plugin directory, built against the ABI headers only. -z nodelete keeps a
# plugin's code mapped after dlclose, because oneTBB's worker threads may
# outlive the unload and would otherwise run unmapped code.
function(tessera_add_plugin name)
  add_library(${name} MODULE ${ARGN})
  set_target_properties(${name} PROPERTIES PREFIX "" SUFFIX ".so"
    LIBRARY_OUTPUT_DIRECTORY ${TESSERA_PLUGIN_OUTPUT_DIRECTORY})
  target_link_libraries(${name} PRIVATE Tessera::abi)
  target_link_options(${name} PRIVATE -Wl,-z,nodelete -Wl,--no-undefined)
  tessera_warnings(${name})
  install(TARGETS ${name} LIBRARY DESTINATION ${TESSERA_PLUGIN_INSTALL_DIR})
endfunction()

# Note [Sanitized kernels]
# The element kernels (cpu_tbb.so, and the CUDA kernels as cuda_emu.so
# builds them) take ASan and UBSan's arithmetic checks in the sanitizer
# build, but not UBSan's alignment, null and pointer-overflow checks: those
# put a check on every element access, and with ASan's they made a third of
# the build (cpu_tbb's unary.cpp: 64 s, 42 s without them, 28 s with ASan
# alone; 2026-12-02). What they would catch is caught otherwise: ASan checks
# every access and a null dereference faults, and element pointers are
# aligned by construction (plugin allocations are 64-byte aligned, offsets
# count whole elements, and the runtime refuses external memory that is not
# aligned to its element size: tsr_from_external, tsr_copy_to_host).
function(tessera_sanitized_kernels target)
  if(TESSERA_SANITIZE MATCHES "undefined")
    target_compile_options(${target} PRIVATE -fno-sanitize=alignment,null,pointer-overflow)
  endif()
endfunction()

# The GPU backend's complex arithmetic (cuda.so, and cuda_emu.so, its build
# for the host): libcu++'s cuda::std::complex, a header-only part of the CUDA
# Toolkit (CCCL), usable by nvcc and by the host compiler alike (Note [Complex
# element types] in backends/common/element_types.hpp). Sets
# TESSERA_LIBCUDACXX_INCLUDE, empty when the headers are not found.
function(tessera_find_libcudacxx)
  find_package(CUDAToolkit QUIET)
  find_path(TESSERA_LIBCUDACXX_INCLUDE cuda/std/complex
            HINTS ${CUDAToolkit_INCLUDE_DIRS}/cccl ${CUDAToolkit_INCLUDE_DIRS}
            PATHS /usr/local/cuda/include/cccl /usr/local/cuda/include)
  if(NOT TESSERA_LIBCUDACXX_INCLUDE)
    set(TESSERA_LIBCUDACXX_INCLUDE "" PARENT_SCOPE)
  endif()
endfunction()

# Compiles `target` with the GPU backend's complex types (tessera_find_libcudacxx first).
function(tessera_device_complex target)
  target_include_directories(${target} SYSTEM PRIVATE ${TESSERA_LIBCUDACXX_INCLUDE})
  target_compile_definitions(${target} PRIVATE TESSERA_DEVICE_COMPLEX)
endfunction()

# Note [Compiler cache]
# Every compile (C, C++ and CUDA) goes through ccache when it is installed
# (scripts/install-deps installs it; TESSERA_CCACHE=OFF, or a launcher of
# your own in CMAKE_<LANG>_COMPILER_LAUNCHER, opts out), so that a second
# build of the same sources, in this tree or in another clone, compiles
# nothing it has compiled before. The settings make a clone in another
# folder hit the same entries:
#   base_dir = the source tree: ccache rewrites the absolute paths under it
#     (sources, -I, the build tree when it lies inside, as `make` puts it)
#     relative to the build directory, so two clones hash alike;
#   hash_dir = false: -g's debug info names the compile directory, which
#     would otherwise enter the hash (the debug info of a hit names the
#     first clone's build directory; nothing reads it but a debugger);
#   no sloppiness: nothing is left out of the hash that can change the
#     object (the sources name no __DATE__ or __TIME__, so time_macros
#     would buy nothing).
# The paths a build compiles into its objects (tests' data and config
# locations) differ between clones, so they live in a few small units of
# their own (Note [Test paths] in tests/CMakeLists.txt). The cache is
# ccache's default, the user's cache directory ($XDG_CACHE_HOME/ccache or
# ~/.cache/ccache). Where ccache is absent the build is the same, uncached.
function(tessera_compiler_cache)
  option(TESSERA_CCACHE "Compile through ccache when it is installed" ON)
  if(NOT TESSERA_CCACHE)
    return()
  endif()
  find_program(TESSERA_CCACHE_PROGRAM ccache)
  if(NOT TESSERA_CCACHE_PROGRAM)
    message(STATUS "ccache: not found, compiling without a cache")
    return()
  endif()
  set(launcher ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=1
      ${TESSERA_CCACHE_PROGRAM})
  foreach(lang C CXX CUDA)
    if(NOT CMAKE_${lang}_COMPILER_LAUNCHER)
      set(CMAKE_${lang}_COMPILER_LAUNCHER ${launcher} PARENT_SCOPE)
    endif()
  endforeach()
  message(STATUS "ccache: compiling through ${TESSERA_CCACHE_PROGRAM} (base_dir ${PROJECT_SOURCE_DIR})")
endfunction()

# Note [Test paths]
# Tests and tools find their data, configs and plugins by absolute paths of
# this build. Compiled into a test's own sources (-DPATH="/abs/..."), those
# paths would make every such unit differ between two clones, and the
# compiler cache (Note [Compiler cache]) would miss them all. So a target's
# paths live in one small generated unit of its own, defining the names that
# tests/support/test_paths.hpp declares:
#   tessera_test_paths(test_foo config=/path/to/default.json data_dir=...)
# Values may hold generator expressions ($<TARGET_FILE:cpu_tbb>). A name the
# target uses but was not given fails at link time.
function(tessera_test_paths target)
  set(body "// Generated by tessera_test_paths (cmake/TesseraHelpers.cmake): the paths ${target} uses.\n")
  string(APPEND body "#include \"test_paths.hpp\"\n\nnamespace test_paths {\n")
  foreach(pair IN LISTS ARGN)
    if(NOT pair MATCHES "^([a-z_]+)=(.+)$")
      message(FATAL_ERROR "tessera_test_paths(${target}): expected name=value, got '${pair}'")
    endif()
    string(APPEND body "extern const char ${CMAKE_MATCH_1}[] = \"${CMAKE_MATCH_2}\";\n")
  endforeach()
  string(APPEND body "}  // namespace test_paths\n")
  # A second call for the same target adds a second unit.
  get_target_property(calls ${target} TESSERA_TEST_PATHS_CALLS)
  if(NOT calls)
    set(calls 0)
  endif()
  math(EXPR calls "${calls} + 1")
  set_target_properties(${target} PROPERTIES TESSERA_TEST_PATHS_CALLS ${calls})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/test_paths/${target}.${calls}.cpp)
  file(GENERATE OUTPUT ${out} CONTENT "${body}")
  target_sources(${target} PRIVATE ${out})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
endfunction()
