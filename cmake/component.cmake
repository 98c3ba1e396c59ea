# SPDX-License-Identifier: MIT
# WASI 0.2 and 0.3 components. wasync_component(TARGET WORLD ADAPTER
# [OWN_RUN] [WIT DIR...]) links the executable TARGET as a core module for ADAPTER
# (command or reactor: the preview1 adapter kind, jco's; or proxy: a reactor
# wrapped with wasmtime's proxy adapter, WASYNC_PROXY_ADAPTER, for a
# wasi:http/proxy service that imports only what that world has: hosts that
# serve the world refuse the others' wasi:filesystem), then, after each link,
# wraps it with scripts/component.mjs as NAME.component.wasm next to it
# (NAME: the target's file name), targeting WORLD. WORLD is one of our
# worlds (wit/*.wit: command, proxy, client, command-p3) or, with WIT, of
# the package in the first DIR (its .wit files); the other DIRs are more
# packages it uses, and ours is there as wasync:host. A 0.3 world exports an
# async wasi:cli/run, which the core module exports itself: build it as a
# reactor. For the 0.3 worlds command-p3 and client-p3 the library's
# src/host/wasip3/command.c provides that export and runs main; a program
# that exports run itself passes OWN_RUN.
#
# The script runs on node with jco and preview2-shim from the npm folder
# WASYNC_NODE_MODULES (default: node_modules of the top-level project).
# WASYNC_RUN_P3 runs a 0.3 component (Node 24 + preview3-shim).
# (cache variables: a project that adds wasync with add_subdirectory sees
# them too, not only this folder)
find_program(NODE node REQUIRED)
set(WASYNC_COMPONENT_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/../scripts/component.mjs CACHE INTERNAL "")
set(WASYNC_RUN_P3 ${CMAKE_CURRENT_LIST_DIR}/../scripts/run-p3.mjs CACHE INTERNAL "")
set(WASYNC_NODE_MODULES ${CMAKE_SOURCE_DIR}/node_modules CACHE PATH
  "the npm folder with @bytecodealliance/jco and preview2-shim (wasync_component)")
# (scripts/deps.sh test puts it there, from its crate on crates.io)
set(WASYNC_PROXY_ADAPTER ${CMAKE_SOURCE_DIR}/build/tools/adapter/wasi_snapshot_preview1.proxy.wasm CACHE FILEPATH
  "wasmtime's preview1 proxy adapter (wasync_component's ADAPTER proxy)")
# Where component.mjs assembles the WIT folder of our worlds (ours plus
# jco's wasi:*); a target given WIT has a folder of its own.
set(WASYNC_WIT_DIR ${CMAKE_BINARY_DIR}/wit CACHE INTERNAL "")

# wasync_adapter(ADAPTER KIND_VAR OPTIONS_VAR): what component.mjs is told
# for ADAPTER: the module's kind (command or reactor) and the options that
# name the adapter file, if not jco's.
function(wasync_adapter adapter kind_var options_var)
  if(adapter STREQUAL "proxy")
    if(NOT EXISTS ${WASYNC_PROXY_ADAPTER})
      message(FATAL_ERROR "ADAPTER proxy needs wasmtime's preview1 proxy adapter, not found at "
        "WASYNC_PROXY_ADAPTER (${WASYNC_PROXY_ADAPTER}): scripts/deps.sh test fetches it")
    endif()
    set(${kind_var} reactor PARENT_SCOPE)
    set(${options_var} --adapter ${WASYNC_PROXY_ADAPTER} PARENT_SCOPE)
  else()
    set(${kind_var} ${adapter} PARENT_SCOPE)
    set(${options_var} "" PARENT_SCOPE)
  endif()
endfunction()

function(wasync_component target world adapter)
  cmake_parse_arguments(PARSE_ARGV 3 arg "OWN_RUN" "" "WIT")
  # wasync's src/wasi/cabi.c provides cabi_realloc (always exported) and the
  # command entry, which replaces libc's crt1 (see that file for why).
  target_link_libraries(${target} PRIVATE wasync::wasync)
  target_link_options(${target} PRIVATE -Wl,--undefined=cabi_realloc)
  if(world MATCHES "^(command|client)-p3$" AND NOT arg_OWN_RUN)
    target_link_options(${target} PRIVATE -Wl,--undefined=wa__wasip3_run)
  endif()
  wasync_adapter(${adapter} kind with)
  if(kind STREQUAL "command")
    target_link_options(${target} PRIVATE -nostartfiles)
  elseif(kind STREQUAL "reactor")
    target_link_options(${target} PRIVATE -mexec-model=reactor)
  else()
    message(FATAL_ERROR "wasync_component(${target}): ADAPTER must be command, reactor or proxy, not ${adapter}")
  endif()
  set_target_properties(${target} PROPERTIES SUFFIX ".wasm")
  get_target_property(name ${target} OUTPUT_NAME)
  if(NOT name)
    set(name ${target})
  endif()
  # Next to the core module (computed: BYPRODUCTS takes no $<TARGET_FILE_DIR>).
  get_target_property(dir ${target} RUNTIME_OUTPUT_DIRECTORY)
  if(NOT dir)
    get_target_property(dir ${target} BINARY_DIR)
  endif()
  set(wit_dir ${WASYNC_WIT_DIR})
  set(packages "")
  set(wit ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../wit)
  foreach(d ${arg_WIT})
    get_filename_component(d ${d} ABSOLUTE)
    list(APPEND packages --package ${d})
    list(APPEND wit ${d})
    set(wit_dir ${dir}/${name}.wit)
  endforeach()
  # Relink (and so rewrap) when the worlds or the script change.
  list(TRANSFORM wit APPEND /*.wit)
  file(GLOB wit CONFIGURE_DEPENDS ${wit})
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${wit} ${WASYNC_COMPONENT_SCRIPT})
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${NODE} ${WASYNC_COMPONENT_SCRIPT} --node-modules ${WASYNC_NODE_MODULES} --wit ${wit_dir} ${packages} ${with}
            $<TARGET_FILE:${target}> ${dir}/${name}.component.wasm ${world} ${kind}
    BYPRODUCTS ${dir}/${name}.component.wasm
    VERBATIM)
endfunction()

# Users' own worlds (docs/bindings.md). wit-bindgen's C generator and wac,
# the composer, are built from crates.io by scripts/deps.sh test (pinned
# there) into build/tools/bin; a project elsewhere names its own.
set(WASYNC_BINDINGS_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/../scripts/bindings.mjs CACHE INTERNAL "")
find_program(WASYNC_WIT_BINDGEN wit-bindgen HINTS ${CMAKE_SOURCE_DIR}/build/tools/bin
  DOC "wit-bindgen's CLI with its C generator (wasync_bindings)")
find_program(WASYNC_WAC wac HINTS ${CMAKE_SOURCE_DIR}/build/tools/bin DOC "wac, the component composer (wasync_compose)")

# wasync_bindings(TARGET WORLD DIR...): typed C bindings of the world WORLD
# of the WIT package in the first DIR (the others: packages it uses, as
# deps/) for TARGET, made at build time in TARGET's folder as
# NAME.bindings/: wit-bindgen's (WORLD.h, .c and the world's type as an
# object, which joins the world to the component wasync_component makes)
# and wasync's layer over them (WORLD_wasync.h and .c: async imports as
# futures, async exports as tasks). The folder is on TARGET's include path.
function(wasync_bindings target world)
  if(NOT WASYNC_WIT_BINDGEN)
    message(FATAL_ERROR "wasync_bindings(${target}): wit-bindgen not found: set WASYNC_WIT_BINDGEN "
      "(scripts/deps.sh test builds it into build/tools/bin)")
  endif()
  get_target_property(name ${target} OUTPUT_NAME)
  if(NOT name)
    set(name ${target})
  endif()
  get_target_property(bin ${target} BINARY_DIR)
  set(out ${bin}/${name}.bindings)
  string(REPLACE "-" "_" c ${world})
  set(generated ${out}/${c}.c ${out}/${c}.h ${out}/${c}_component_type.o ${out}/${c}_wasync.c ${out}/${c}_wasync.h)
  set(wit "")
  foreach(d ${ARGN})
    get_filename_component(d ${d} ABSOLUTE)
    list(APPEND wit ${d})
  endforeach()
  list(POP_FRONT wit main)
  file(GLOB deps CONFIGURE_DEPENDS ${main}/*.wit)
  foreach(d ${wit})
    file(GLOB more CONFIGURE_DEPENDS ${d}/*.wit)
    list(APPEND deps ${more})
  endforeach()
  # wit-bindgen reads the other packages from the main one's deps/: with
  # more DIRs, a copy of the main package gets them there.
  set(pkg ${main})
  set(copy "")
  if(wit)
    set(pkg ${out}/wit)
    set(copy COMMAND ${CMAKE_COMMAND} -E copy_directory ${main} ${pkg})
    foreach(d ${wit})
      get_filename_component(dep ${d} NAME)
      list(APPEND copy COMMAND ${CMAKE_COMMAND} -E copy_directory ${d} ${pkg}/deps/${dep})
    endforeach()
  endif()
  add_custom_command(OUTPUT ${generated}
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${out}
    ${copy}
    COMMAND ${WASYNC_WIT_BINDGEN} c --world ${world} --out-dir ${out} ${pkg}
    COMMAND ${NODE} ${WASYNC_BINDINGS_SCRIPT} ${out}/${c}.h
    DEPENDS ${deps} ${WASYNC_BINDINGS_SCRIPT}
    COMMENT "Bindings of world ${world} for ${target}"
    VERBATIM)
  target_sources(${target} PRIVATE ${out}/${c}.c ${out}/${c}_wasync.c)
  target_link_libraries(${target} PRIVATE ${out}/${c}_component_type.o)
  # wit-bindgen's C declares `f()` for f(void): quiet on its files, and its
  # header is a system one to the user's.
  set_source_files_properties(${out}/${c}.c ${out}/${c}_wasync.c TARGET_DIRECTORY ${target} PROPERTIES
    COMPILE_OPTIONS "-Wno-strict-prototypes;-Wno-missing-prototypes;-Wno-unused-parameter")
  target_include_directories(${target} SYSTEM PRIVATE ${out})
endfunction()

# wasync_compose(NAME APP PLUG...): NAME.component.wasm in this folder, the
# component of target APP (wasync_component's) with the imports that the
# components of the PLUG targets export plugged by them (wac plug), made
# by target NAME.
function(wasync_compose name app)
  if(NOT WASYNC_WAC)
    message(FATAL_ERROR "wasync_compose(${name}): wac not found: set WASYNC_WAC "
      "(scripts/deps.sh test builds it into build/tools/bin)")
  endif()
  set(plugs "")
  set(files "")
  foreach(t ${app} ${ARGN})
    get_target_property(file ${t} OUTPUT_NAME)
    if(NOT file)
      set(file ${t})
    endif()
    get_target_property(dir ${t} BINARY_DIR)
    list(APPEND files ${dir}/${file}.component.wasm)
  endforeach()
  list(POP_FRONT files socket)
  foreach(f ${files})
    list(APPEND plugs --plug ${f})
  endforeach()
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${name}.component.wasm)
  add_custom_command(OUTPUT ${out}
    COMMAND ${WASYNC_WAC} plug ${socket} ${plugs} -o ${out}
    DEPENDS ${app} ${ARGN} ${socket} ${files}
    COMMENT "Composing ${name}"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${out})
endfunction()
