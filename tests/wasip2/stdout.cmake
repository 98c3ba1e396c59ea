# SPDX-License-Identifier: MIT
# cmake -DCOMMAND=cmd;args -DEXPECTED=file -P stdout.cmake: runs the command
# and fails unless it exits 0 with exactly the file's contents on stdout.
# With -DMATCH=regex instead of EXPECTED: unless it exits 0 with stdout
# matching the regex (a PASS_REGULAR_EXPRESSION would ignore the status).
execute_process(COMMAND ${COMMAND} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
# Both passed on, for the test's FAIL_REGULAR_EXPRESSION and its log.
message("${out}${err}")
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
