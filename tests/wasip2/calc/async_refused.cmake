# SPDX-License-Identifier: MIT
# A world with async functions bound for a WASI 0.2 build fails to compile
# with a message that says why: bindings of tests/wasip3/kinds's world
# `user` made into OUT, then a file including them compiled with CC and
# FLAGS (the wasip2 build's: its wasync/config.h) must fail so.
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${WIT_BINDGEN} c --world user --out-dir ${OUT} ${WIT} RESULT_VARIABLE rc OUTPUT_QUIET)
if(rc)
  message(FATAL_ERROR "wit-bindgen failed (${rc})")
endif()
execute_process(COMMAND ${NODE} ${SCRIPT} ${OUT}/user.h RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "bindings.mjs failed (${rc})")
endif()
file(WRITE ${OUT}/use.c "#include \"user_wasync.h\"\n")
separate_arguments(flags UNIX_COMMAND "${FLAGS}")
execute_process(COMMAND ${CC} ${flags} -isystem ${OUT} -fsyntax-only ${OUT}/use.c RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc)
  message(FATAL_ERROR "a world with async functions compiled for WASI 0.2")
endif()
if(NOT err MATCHES "world user has async functions: they need the WASI 0.3 host")
  message(FATAL_ERROR "not the message: ${err}")
endif()
