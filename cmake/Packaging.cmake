# SPDX-License-Identifier: Apache-2.0
# Note [The Debian package]
# `cpack -G DEB` in a build directory packs what `cmake --install` installs,
# with the prefix /usr, into:
#  - tessera_<version>_<arch>.deb: libtessera.so.<version> with its SONAME
#    link libtessera.so.<ABI major> and libtessera.so, the plugins built on
#    Debian's libraries alone (cpu_tbb.so, mpi.so), the headers, tessera.pc,
#    the CMake package, the configs, the `tessera` command, the examples, the
#    licence and the Python package (with its extension tessera._C) in
#    /usr/lib/python3/dist-packages/tessera, where Debian's python3 looks;
#  - tessera-cuda_<version>_<arch>.deb, where cuda.so is built: cuda.so and
#    nccl.so. They link cuBLAS, cuSOLVER and NCCL from the CUDA Toolkit
#    (/usr/local/cuda), which no Debian package provides: dpkg-shlibdeps can
#    name no dependency for them, and a main package holding them would
#    either be uninstallable or, installed without the toolkit, have plugins
#    that cannot load. Apart, tessera installs on any Debian machine, and
#    tessera-cuda (which depends on the tessera of its own version, and
#    declares nothing of the toolkit) where the CUDA Toolkit is. Their
#    configs (cuda.json, nccl.json) stay in tessera, as in an install
#    without CUDA: a config is data, and `tessera info` says what is missing.
# Depends: what dpkg-shlibdeps finds the ELF files need (libc6, libstdc++6,
# libtbb12, libkissfft-float131 (cpu_tbb.so's FFT kind), libopenmpi3, ...), plus what it cannot see: python3 (the minor
# version tessera._C is built for) for the Python package, and the BLAS
# cpu_tbb.so opens by SONAME on first use.
# NumPy is optional (imported only by from_numpy and Tensor.numpy):
# Recommends. CPack adds the ldconfig calls (postinst, postrm) a library in
# /usr/lib needs; cmake/debian/prerm.in removes Python's bytecode, so that
# `apt remove` leaves nothing behind. tests/install/deb_installs.sh
# (install.deb) builds both packages and installs the first.
set(TESSERA_PACKAGE_MAINTAINER "Tessera maintainers <maintainers@users.noreply.a-seed-b50fdab2.example>"
  CACHE STRING "The Maintainer field of the Debian packages (cpack -G DEB)")
set(TESSERA_PACKAGE_HOMEPAGE "" CACHE STRING "The Homepage field of the Debian packages (none when empty)")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tessera)
set(CPACK_PACKAGE_VENDOR "The Tessera developers")
set(CPACK_PACKAGE_CONTACT "${TESSERA_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "tensor runtime with a stable C ABI and device plugins")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${TESSERA_PACKAGE_MAINTAINER}")
if(TESSERA_PACKAGE_HOMEPAGE)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${TESSERA_PACKAGE_HOMEPAGE}")
endif()
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)

# tessera: everything installed without a component of its own.
set(CPACK_DEBIAN_UNSPECIFIED_PACKAGE_NAME tessera)
set(CPACK_DEBIAN_UNSPECIFIED_DESCRIPTION "Tessera is a tensor runtime behind a C ABI. This package
holds libtessera, its headers, pkg-config and CMake files, the tessera
command, the CPU (oneTBB, OpenBLAS) and MPI plugins, the Python package
tessera and the examples, among them a sample third-party device plugin.")
# The BLAS cpu_tbb.so opens, by the Debian package that provides its SONAME:
# OpenBLAS's and the reference BLAS's by name (libopenblas0 takes any of its
# pthread, openmp and serial builds), another by the packages holding it here.
get_target_property(tessera_cpu_definitions cpu_tbb COMPILE_DEFINITIONS)
string(REGEX MATCH "TESSERA_BLAS_SONAME=\"([^\";]+)\"" tessera_blas_match "${tessera_cpu_definitions}")
set(tessera_blas_soname "${CMAKE_MATCH_1}")
if(tessera_blas_soname MATCHES "^libopenblas\\.so\\.([0-9]+)$")
  set(tessera_blas_package "libopenblas${CMAKE_MATCH_1}")
elseif(tessera_blas_soname STREQUAL "libblas.so.3")
  set(tessera_blas_package "libblas3 | libblas.so.3")
else()
  execute_process(COMMAND dpkg-query -S "*/${tessera_blas_soname}"
    OUTPUT_VARIABLE tessera_blas_owners ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  string(REGEX MATCHALL "(^|\n)[^:,\n]+" tessera_blas_owners "${tessera_blas_owners}")
  list(TRANSFORM tessera_blas_owners STRIP)
  list(REMOVE_DUPLICATES tessera_blas_owners)
  list(JOIN tessera_blas_owners " | " tessera_blas_package)
  if(NOT tessera_blas_package)
    message(STATUS "cpack -G DEB: no Debian package provides ${tessera_blas_soname} (cpu_tbb.so's BLAS); "
      "the package will not depend on one")
  endif()
endif()
# tessera._C is built for one CPython (its SOABI, cpython-3NN): python3 of
# that minor version, as dh_python3 would say.
set(tessera_python_package python3)
if(TARGET tessera_python_C)
  get_target_property(tessera_python_suffix tessera_python_C SUFFIX)
  if(tessera_python_suffix MATCHES "^\\.cpython-([0-9])([0-9]+)-")
    math(EXPR tessera_python_next "${CMAKE_MATCH_2} + 1")
    set(tessera_python_package
      "python3 (>= ${CMAKE_MATCH_1}.${CMAKE_MATCH_2}~), python3 (<< ${CMAKE_MATCH_1}.${tessera_python_next})")
  endif()
endif()
set(CPACK_DEBIAN_UNSPECIFIED_PACKAGE_DEPENDS "${tessera_python_package}")
if(tessera_blas_package)
  string(APPEND CPACK_DEBIAN_UNSPECIFIED_PACKAGE_DEPENDS ", ${tessera_blas_package}")
endif()
set(CPACK_DEBIAN_UNSPECIFIED_PACKAGE_RECOMMENDS python3-numpy)
# Debian's python3 imports from /usr/lib/python3/dist-packages alone; the
# package is installed to <libdir>/python3/dist-packages (Install.cmake).
set(TESSERA_DEB_PYTHON_PACKAGE_DIR ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/python3/dist-packages/tessera)
if(NOT TESSERA_DEB_PYTHON_PACKAGE_DIR STREQUAL "/usr/lib/python3/dist-packages/tessera")
  message(WARNING "cpack -G DEB would put the Python package in ${TESSERA_DEB_PYTHON_PACKAGE_DIR}, where Debian's "
    "python3 does not look: configure with CMAKE_INSTALL_LIBDIR=lib (the default for a prefix other than /usr)")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/prerm.in ${CMAKE_BINARY_DIR}/cmake/debian/prerm @ONLY
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_UNSPECIFIED_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/cmake/debian/prerm)
set(CPACK_DEBIAN_UNSPECIFIED_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# tessera-cuda: the plugins on the CUDA Toolkit's libraries (component cuda,
# backends/cuda and backends/nccl), where built.
if(TARGET cuda)
  set(CPACK_DEBIAN_CUDA_PACKAGE_NAME tessera-cuda)
  set(CPACK_DEBIAN_CUDA_PACKAGE_SHLIBDEPS OFF)
  set(CPACK_DEBIAN_CUDA_PACKAGE_DEPENDS "tessera (= ${PROJECT_VERSION})")
  set(CPACK_DEBIAN_CUDA_DESCRIPTION "Tessera's CUDA plugins: cuda.so (CUDA kernels, cuBLAS, cuSOLVER) and,
where built, nccl.so (NCCL communicators), in /usr/lib/tessera. They load
the CUDA Toolkit's libraries from /usr/local/cuda, which no Debian package
provides: install the toolkit first. /usr/share/tessera/configs/cuda.json
(in the package tessera) enables them.")
endif()
include(CPack)
