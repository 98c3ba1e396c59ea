# SPDX-License-Identifier: MIT
# cmake -DCOMMAND=cmd;args -DSTATUS=n -P exit.cmake: runs exit.c's component
# with STATUS and checks that the process fails exactly when STATUS is not 0
# (wasi:cli/exit carries only ok or err) and that stdout was flushed.
execute_process(COMMAND ${COMMAND} ${STATUS} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc MATCHES "^[0-9]+$" OR (STATUS EQUAL 0 AND NOT rc EQUAL 0) OR (NOT STATUS EQUAL 0 AND rc EQUAL 0))
  message(FATAL_ERROR "exit status ${rc} for ${STATUS}\n${err}")
endif()
if(NOT out STREQUAL "exiting with ${STATUS}")
  message(FATAL_ERROR "stdout: '${out}'\n${err}")
endif()
message(STATUS "exit status ${rc} for ${STATUS}")
