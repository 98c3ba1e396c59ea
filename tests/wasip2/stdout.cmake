# SPDX-License-Identifier: MIT
# cmake -DCOMMAND=cmd;args -DEXPECTED=file -P stdout.cmake: runs the command
# and fails unless it exits 0 with exactly the file's contents on stdout.
# With -DMATCH=regex instead of EXPECTED: unless it exits 0 with stdout
# matching the regex (a PASS_REGULAR_EXPRESSION would ignore the status).
# With -DREFUSED=regex: unless it fails (a status other than 0) with
# stdout and stderr matching the regex (a compiler's error, say).
execute_process(COMMAND ${COMMAND} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
# Both passed on, for the test's FAIL_REGULAR_EXPRESSION and its log.
message("${out}${err}")
if(DEFINED REFUSED)
  if(rc STREQUAL "0")
    message(FATAL_ERROR "exit status 0, not a failure")
  endif()
  if(NOT "${out}${err}" MATCHES "${REFUSED}")
    message(FATAL_ERROR "output does not match ${REFUSED}")
  endif()
  return()
endif()
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "exit status ${rc}")
endif()
if(DEFINED MATCH)
  if(NOT out MATCHES "${MATCH}")
    message(FATAL_ERROR "stdout does not match ${MATCH}")
  endif()
  return()
endif()
file(READ ${EXPECTED} want)
if(NOT out STREQUAL want)
  message(FATAL_ERROR "stdout differs\n--- got:\n${out}--- expected:\n${want}--- stderr:\n${err}")
endif()
