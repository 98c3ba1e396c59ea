# SPDX-License-Identifier: MIT
# include/wasync/version.h and js/package.json say the version that
# project() in CMakeLists.txt says (VERSION: PROJECT_VERSION; HEADER: the
# header; PACKAGE: the package.json).
file(READ ${HEADER} text)
foreach(part MAJOR MINOR PATCH)
  string(REGEX MATCH "#define WASYNC_VERSION_${part} ([0-9]+)" _ "${text}")
  list(APPEND numbers ${CMAKE_MATCH_1})
endforeach()
list(JOIN numbers . header)
string(REGEX MATCH "#define WASYNC_VERSION_STRING \"([^\"]*)\"" _ "${text}")
file(READ ${PACKAGE} json)
string(JSON package GET "${json}" version)
if(NOT header STREQUAL VERSION OR NOT CMAKE_MATCH_1 STREQUAL VERSION OR NOT package STREQUAL VERSION)
  message(FATAL_ERROR "version.h says ${header} (\"${CMAKE_MATCH_1}\"), js/package.json ${package}, CMakeLists.txt ${VERSION}")
endif()
message("version ${VERSION}: ok")
