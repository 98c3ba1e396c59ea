# SPDX-License-Identifier: MIT
# The JS host. wasync_js_module(TARGET) makes the executable TARGET a
# module for js/wasync.mjs: a reactor (the glue calls its exports; there is
# no main), linked with wasync, unused code and debug info left out, named
# NAME.wasm.
function(wasync_js_module target)
  target_link_libraries(${target} PRIVATE wasync::wasync)
  target_link_options(${target} PRIVATE -mexec-model=reactor -Wl,--gc-sections -Wl,--strip-debug)
  set_target_properties(${target} PROPERTIES SUFFIX ".wasm")
endfunction()
