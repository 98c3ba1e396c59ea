# SPDX-License-Identifier: MIT
# The JS host. wasync_js_module(TARGET) makes the executable TARGET a
# module for js/wasync.mjs: a reactor (the glue calls its exports; there is
# no main), linked with wasync, unused code, debug info and the producers
# section left out (the target features kept: wasm-opt reads them), named
# NAME.wasm.
function(wasync_js_module target)
  target_link_libraries(${target} PRIVATE wasync::wasync)
  target_link_options(${target} PRIVATE -mexec-model=reactor -Wl,--gc-sections -Wl,--strip-all
    -Wl,--keep-section=target_features)
  set_target_properties(${target} PROPERTIES SUFFIX ".wasm")
endfunction()
