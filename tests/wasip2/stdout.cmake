# SPDX-License-Identifier: MIT
# cmake -DCOMMAND=cmd;args -DEXPECTED=file -P stdout.cmake: runs the command
# and fails unless it exits 0 with exactly the file's contents on stdout.
execute_process(COMMAND ${COMMAND} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
file(READ ${EXPECTED} want)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "exit status ${rc}\n${err}")
endif()
if(NOT out STREQUAL want)
  message(FATAL_ERROR "stdout differs\n--- got:\n${out}--- expected:\n${want}--- stderr:\n${err}")
endif()
