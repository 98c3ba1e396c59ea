# WASI 0.2 and 0.3 components. wasync_component(TARGET WORLD ADAPTER) links
# the executable TARGET as a core module for ADAPTER (command or reactor: the
# preview1 adapter kind), then, after each link, wraps it with
# scripts/component.mjs as ${TARGET}.component.wasm next to it, targeting
# WORLD of wit/*.wit. A 0.3 world exports an async wasi:cli/run, which the
# core module exports itself: build it as a reactor. For the 0.3 world
# command-p3 the library's src/wasi/command_p3.c provides that export and
# runs main; a program that exports run itself passes OWN_RUN after ADAPTER.
# WASYNC_RUN_P3 runs a 0.3 component (Node 24 + preview3-shim).
find_program(NODE node REQUIRED)
set(WASYNC_COMPONENT_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/../scripts/component.mjs)
set(WASYNC_RUN_P3 ${CMAKE_CURRENT_LIST_DIR}/../scripts/run-p3.mjs)
# Where component.mjs assembles the WIT folder (ours plus jco's wasi:*).
set(WASYNC_WIT_DIR ${CMAKE_BINARY_DIR}/wit)

function(wasync_component target world adapter)
  # wasync's src/wasi/cabi.c provides cabi_realloc (always exported) and the
  # command entry, which replaces libc's crt1 (see that file for why).
  target_link_libraries(${target} PRIVATE wasync)
  target_link_options(${target} PRIVATE -Wl,--undefined=cabi_realloc)
  if(world STREQUAL "command-p3" AND NOT "OWN_RUN" IN_LIST ARGN)
    target_link_options(${target} PRIVATE -Wl,--undefined=wa_p3_run_)
  endif()
  if(adapter STREQUAL "command")
    target_link_options(${target} PRIVATE -nostartfiles)
  elseif(adapter STREQUAL "reactor")
    target_link_options(${target} PRIVATE -mexec-model=reactor)
  else()
    message(FATAL_ERROR "wasync_component(${target}): ADAPTER must be command or reactor")
  endif()
  set_target_properties(${target} PROPERTIES SUFFIX ".wasm")
  # Relink (and so rewrap) when the worlds or the script change.
  file(GLOB wit CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/wit/*.wit)
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${wit} ${WASYNC_COMPONENT_SCRIPT})
  # Next to the core module (computed: BYPRODUCTS takes no $<TARGET_FILE_DIR>).
  get_target_property(dir ${target} RUNTIME_OUTPUT_DIRECTORY)
  if(NOT dir)
    get_target_property(dir ${target} BINARY_DIR)
  endif()
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${NODE} ${WASYNC_COMPONENT_SCRIPT} --wit ${WASYNC_WIT_DIR}
            $<TARGET_FILE:${target}> ${dir}/${target}.component.wasm ${world} ${adapter}
    BYPRODUCTS ${dir}/${target}.component.wasm
    VERBATIM)
endfunction()
