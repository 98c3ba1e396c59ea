# SPDX-License-Identifier: MIT
# Runs each of PROGRAMS (a list; RUNNER, a list, before each if given) and
# fails unless they all print the same: the public types' layout is one
# whatever host define a program was built with (tests/layout.c).
set(first_p "")
foreach(p ${PROGRAMS})
  execute_process(COMMAND ${RUNNER} ${p} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${p} failed (${rc})")
  endif()
  if(first_p STREQUAL "")
    set(first "${out}")
    set(first_p "${p}")
  elseif(NOT out STREQUAL first)
    message(FATAL_ERROR "the layout differs:\n${first_p}:\n${first}\n${p}:\n${out}")
  endif()
endforeach()
message(STATUS "one layout for ${PROGRAMS}")
