# SPDX-License-Identifier: MIT
# wasmtime, the second host of the WASI tests: each WASI 0.1 module and
# 0.2 or 0.3 component that a test runs under node:wasi or jco also runs
# under the wasmtime CLI, as test NAME_wasmtime with label wasmtime and the
# same checks. scripts/deps.sh installs the CLI pinned (scripts/wasmtime.txt)
# into build/tools/wasmtime; without it these tests are not added.
find_program(WASYNC_WASMTIME wasmtime HINTS ${PROJECT_SOURCE_DIR}/build/tools/wasmtime/wasmtime_cli
  DOC "the wasmtime CLI, the WASI tests' second host (scripts/deps.sh installs it)")
if(NOT WASYNC_WASMTIME)
  message(STATUS "wasmtime not found (scripts/deps.sh test installs it): no wasmtime tests")
else()
  execute_process(COMMAND ${WASYNC_WASMTIME} --version OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE)
  message(STATUS "WASI tests under ${version} too (${WASYNC_WASMTIME})")

  # What jco and node:wasi grant too: the environment (the tests' variables)
  # and, to components, the network (TCP, name lookups) and wasi:http. 0.3
  # needs WASIp3 and Component Model async (on by default in wasmtime 49,
  # named here as what the component needs).
  set(WASYNC_WASMTIME_FLAGS -S inherit-env)
  if(WASYNC_HOST MATCHES "^wasip[23]$")
    list(APPEND WASYNC_WASMTIME_FLAGS -S inherit-network -S allow-ip-name-lookup -S http)
  endif()
  if(WASYNC_HOST STREQUAL "wasip3")
    # (more-async-builtins: the async subtask.cancel of wa_wasip3_set_async_cancel,
    # imported only by the programs that call it)
    list(APPEND WASYNC_WASMTIME_FLAGS -S p3 -W component-model-async -W component-model-more-async-builtins)
  endif()
  set(WASYNC_WASMTIME_RUN ${WASYNC_WASMTIME} run ${WASYNC_WASMTIME_FLAGS})
  # What a test under wasmtime is told: WASYNC_RUNNER=wasmtime (a C test's
  # figures of host calls or timers, a Node test's runner), and for a Node
  # test the CLI and the flags (tests/wasip2/runner.mjs).
  string(REPLACE ";" " " flags "${WASYNC_WASMTIME_FLAGS}")
  set(WASYNC_WASMTIME_ENV "WASYNC_RUNNER=wasmtime;WASYNC_WASMTIME=${WASYNC_WASMTIME};WASYNC_WASMTIME_FLAGS=${flags}")
endif()

# wasync_wasmtime_test(NAME FILE [ARGS arg...] [CHECK -Dvar=value...]
# [SCRIPT script.cmake]): test NAME_wasmtime runs FILE under wasmtime with
# ARGS. With CHECK or SCRIPT, checked by SCRIPT (default
# tests/wasip2/stdout.cmake) given -DCOMMAND and CHECK, as NAME is; else
# the command alone is the test. It takes NAME's properties as they are
# then (wasync_wasmtime_like).
function(wasync_wasmtime_test name file)
  if(NOT WASYNC_WASMTIME)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "SCRIPT" "ARGS;CHECK")
  set(run ${WASYNC_WASMTIME_RUN} ${file} ${arg_ARGS})
  if(NOT arg_CHECK AND NOT arg_SCRIPT)
    add_test(NAME ${name}_wasmtime COMMAND ${run})
  else()
    if(NOT arg_SCRIPT)
      set(arg_SCRIPT ${PROJECT_SOURCE_DIR}/tests/wasip2/stdout.cmake)
    endif()
    string(REPLACE ";" "$<SEMICOLON>" run "${run}")
    add_test(NAME ${name}_wasmtime COMMAND ${CMAKE_COMMAND} -DCOMMAND=${run} ${arg_CHECK} -P ${arg_SCRIPT})
  endif()
  wasync_wasmtime_like(${name})
endfunction()

# wasync_wasmtime_node(NAME TEST.mjs FILE): test NAME_wasmtime is the Node
# test TEST.mjs with its runner switched to wasmtime (WASYNC_RUNNER) on
# FILE (WASYNC_COMPONENT).
function(wasync_wasmtime_node name test file)
  if(NOT WASYNC_WASMTIME)
    return()
  endif()
  add_test(NAME ${name}_wasmtime COMMAND ${NODE} --test ${test})
  wasync_wasmtime_like(${name})
  get_test_property(${name}_wasmtime ENVIRONMENT env)
  set_tests_properties(${name}_wasmtime PROPERTIES ENVIRONMENT "${env};WASYNC_COMPONENT=${file}")
endfunction()

# wasync_wasmtime_same(NAME COMMAND...): test NAME_wasmtime runs COMMAND,
# NAME's, told to run its programs under wasmtime (WASYNC_RUNNER).
function(wasync_wasmtime_same name)
  if(WASYNC_WASMTIME)
    add_test(NAME ${name}_wasmtime COMMAND ${ARGN})
    wasync_wasmtime_like(${name})
  endif()
endfunction()

# wasync_wasmtime_like(NAME): test NAME_wasmtime (when there is one) gets
# label wasmtime, WASYNC_WASMTIME_ENV, and NAME's environment,
# FAIL_REGULAR_EXPRESSION and timeout (120 s when NAME has none).
function(wasync_wasmtime_like name)
  if(NOT TEST ${name}_wasmtime)
    return()
  endif()
  set(env ${WASYNC_WASMTIME_ENV})
  get_test_property(${name} ENVIRONMENT e)
  if(e)
    list(APPEND env ${e})
  endif()
  set_tests_properties(${name}_wasmtime PROPERTIES LABELS wasmtime ENVIRONMENT "${env}" TIMEOUT 120)
  foreach(p FAIL_REGULAR_EXPRESSION TIMEOUT)
    get_test_property(${name} ${p} v)
    if(v)
      set_tests_properties(${name}_wasmtime PROPERTIES ${p} "${v}")
    endif()
  endforeach()
endfunction()
