# SPDX-License-Identifier: MIT
# Toolchain for WebAssembly: clang-19 and lld-19 targeting wasm32 with
# Debian's wasi-libc as the sysroot (its libc has no WASI imports unless a
# function that needs the host is linked in; the JS build links none).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR wasm32)
set(CMAKE_C_COMPILER clang-19)
set(CMAKE_C_COMPILER_TARGET wasm32-wasi)
set(CMAKE_SYSROOT /usr)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
