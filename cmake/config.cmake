# SPDX-License-Identifier: MIT
# wasync_config(HOST DIR) writes DIR/wasync/config.h for HOST (native, js,
# wasip1, wasip2 or wasip3): the header that tells the public headers which host
# the library was built for (cmake/config.h.in).
function(wasync_config host dir)
  set(WASYNC_CONFIG_HOST ${host})
  string(TOUPPER ${host} WASYNC_CONFIG_HOST_UPPER)
  configure_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/config.h.in ${dir}/wasync/config.h @ONLY)
endfunction()
