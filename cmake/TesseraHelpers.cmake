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
