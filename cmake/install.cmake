# SPDX-License-Identifier: MIT
# What `cmake --install` puts into the prefix, for the configured host:
#   include/             the headers, with this build's wasync/config.h
#   lib/libwasync.a      the library
#   lib/pkgconfig/wasync.pc
#   lib/cmake/wasync/    the CMake package: wasync::wasync, and for a WASI
#                        host wasync_component(), for the JS host
#                        wasync_js_module()
#   share/wasync/        what those functions use, laid out as in the
#                        repository: cmake/, scripts/, wit/, js/ (the glue,
#                        the package @wasync/js), LICENSE
include(CMakePackageConfigHelpers)
set(WASYNC_DATADIR ${CMAKE_INSTALL_DATADIR}/wasync)
set(WASYNC_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/wasync)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ ${PROJECT_BINARY_DIR}/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(TARGETS wasync EXPORT wasyncTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT wasyncTargets NAMESPACE wasync:: DESTINATION ${WASYNC_CMAKEDIR})

# Natively the library needs threads (DNS lookups): the package finds them,
# and pkg-config says -pthread; the JS host's modules ask for the exports.
set(WASYNC_THREADS OFF)
if(TARGET Threads::Threads)
  set(WASYNC_THREADS ON)
  set(WASYNC_PC_LIBS " -pthread")
elseif(WASYNC_HOST STREQUAL "js")
  set(WASYNC_PC_LIBS " -Wl,--undefined=wasync_init")
endif()
# Natively the HTTP client is libcurl's and the io_uring reactor
# liburing's: the package finds them, and pkg-config requires them (the
# library is static: its users link both).
set(WASYNC_CURL OFF)
set(WASYNC_PC_REQUIRES "")
if(TARGET CURL::libcurl)
  set(WASYNC_CURL ON)
  set(WASYNC_PC_REQUIRES "Requires: libcurl liburing")
endif()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/wasyncConfig.cmake.in
  ${PROJECT_BINARY_DIR}/wasyncConfig.cmake INSTALL_DESTINATION ${WASYNC_CMAKEDIR}
  PATH_VARS WASYNC_DATADIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/wasyncConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/wasyncConfig.cmake ${PROJECT_BINARY_DIR}/wasyncConfigVersion.cmake
  DESTINATION ${WASYNC_CMAKEDIR})
# (the prefix relative to the file: --install --prefix may choose another)
file(RELATIVE_PATH WASYNC_PC_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p/)
string(REGEX REPLACE "/$" "" WASYNC_PC_PREFIX ${WASYNC_PC_PREFIX})
configure_file(${CMAKE_CURRENT_LIST_DIR}/wasync.pc.in ${PROJECT_BINARY_DIR}/wasync.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/wasync.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(FILES ${CMAKE_CURRENT_LIST_DIR}/component.cmake ${CMAKE_CURRENT_LIST_DIR}/js.cmake
  ${CMAKE_CURRENT_LIST_DIR}/wasm32.cmake DESTINATION ${WASYNC_DATADIR}/cmake)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/component.mjs ${PROJECT_SOURCE_DIR}/scripts/run-p3.mjs
  ${PROJECT_SOURCE_DIR}/scripts/node_modules.mjs ${PROJECT_SOURCE_DIR}/scripts/p3_trace.mjs
  ${PROJECT_SOURCE_DIR}/scripts/wasi1.mjs ${PROJECT_SOURCE_DIR}/scripts/bindings.mjs
  DESTINATION ${WASYNC_DATADIR}/scripts)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/wit/ DESTINATION ${WASYNC_DATADIR}/wit)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/js/ DESTINATION ${WASYNC_DATADIR}/js)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${WASYNC_DATADIR})
