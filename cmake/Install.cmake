# The installed package: headers, libtessera, plugins, configs, the tessera
# command, a CMake package and a pkg-config file.
include(CMakePackageConfigHelpers)
set(TESSERA_CONFIG_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/tessera/configs)
set(TESSERA_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)

install(TARGETS tessera_abi EXPORT TesseraTargets)
set_target_properties(tessera_abi PROPERTIES EXPORT_NAME abi)
install(EXPORT TesseraTargets NAMESPACE Tessera:: DESTINATION ${TESSERA_CMAKE_INSTALL_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/TesseraConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/TesseraConfig.cmake
  INSTALL_DESTINATION ${TESSERA_CMAKE_INSTALL_DIR}
  PATH_VARS TESSERA_PLUGIN_INSTALL_DIR TESSERA_CONFIG_INSTALL_DIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/TesseraConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/TesseraConfig.cmake ${CMAKE_BINARY_DIR}/cmake/TesseraConfigVersion.cmake
  DESTINATION ${TESSERA_CMAKE_INSTALL_DIR})
configure_file(${PROJECT_SOURCE_DIR}/cmake/tessera.pc.in ${CMAKE_BINARY_DIR}/cmake/tessera.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/cmake/tessera.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The Python package (pure Python over ctypes); it finds lib/libtessera.so above itself.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/bindings/python/tessera
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/python3/dist-packages PATTERN __pycache__ EXCLUDE)
