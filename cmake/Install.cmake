# SPDX-License-Identifier: Apache-2.0
# The installed package: headers, libtessera, plugins, configs, the tessera
# command, a CMake package, a pkg-config file, the examples and the licence.
# All of it is relocatable: nothing refers to the install prefix by name.
include(CMakePackageConfigHelpers)
set(TESSERA_CONFIG_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/tessera/configs)
set(TESSERA_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
set(TESSERA_EXAMPLES_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/tessera/examples)

install(TARGETS tessera_abi EXPORT TesseraTargets)
set_target_properties(tessera_abi PROPERTIES EXPORT_NAME abi)
install(EXPORT TesseraTargets NAMESPACE Tessera:: DESTINATION ${TESSERA_CMAKE_INSTALL_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/TesseraConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/TesseraConfig.cmake
  INSTALL_DESTINATION ${TESSERA_CMAKE_INSTALL_DIR}
  PATH_VARS TESSERA_PLUGIN_INSTALL_DIR TESSERA_CONFIG_INSTALL_DIR TESSERA_EXAMPLES_INSTALL_DIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/TesseraConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/TesseraConfig.cmake ${CMAKE_BINARY_DIR}/cmake/TesseraConfigVersion.cmake
  DESTINATION ${TESSERA_CMAKE_INSTALL_DIR})
# tessera.pc finds the prefix from its own place (${pcfiledir}), as the CMake
# package does, so that an install can be moved.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  message(FATAL_ERROR "CMAKE_INSTALL_LIBDIR must be relative to the prefix (the install is relocatable)")
endif()
file(RELATIVE_PATH TESSERA_PC_RELATIVE_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" TESSERA_PC_RELATIVE_PREFIX "${TESSERA_PC_RELATIVE_PREFIX}")  # ../.. for lib
configure_file(${PROJECT_SOURCE_DIR}/cmake/tessera.pc.in ${CMAKE_BINARY_DIR}/cmake/tessera.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/cmake/tessera.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The complete examples the README points to: the sample plugin, buildable
# from here against this install, a C99 program using the C API and the
# lessons' MLP trained from C99 (examples/train_mlp.c).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/plugins/arena/ DESTINATION ${TESSERA_EXAMPLES_INSTALL_DIR}/arena
  PATTERN __pycache__ EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/tests/abi/c99_consumer.c ${PROJECT_SOURCE_DIR}/examples/train_mlp.c
  DESTINATION ${TESSERA_EXAMPLES_INSTALL_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/tessera)

# The Python package; it finds lib/libtessera.so above itself (its extension
# tessera._C is installed into it by bindings/python/CMakeLists.txt).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/bindings/python/tessera
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/python3/dist-packages PATTERN __pycache__ EXCLUDE)
