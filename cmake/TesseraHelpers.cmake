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
