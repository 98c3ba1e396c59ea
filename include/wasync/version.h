/* SPDX-License-Identifier: MIT */
/* wasync/version.h - the version of these headers.
 *
 * Kept equal to project(wasync VERSION ...) in CMakeLists.txt (the test
 * "version" compares them); the library's version is the same.
 */
#ifndef WASYNC_VERSION_H
#define WASYNC_VERSION_H

#define WASYNC_VERSION_MAJOR 0
#define WASYNC_VERSION_MINOR 1
#define WASYNC_VERSION_PATCH 0
#define WASYNC_VERSION_STRING "0.1.0"

#endif
