# SPDX-License-Identifier: MIT
# Sourced by the HTTP benchmarks (run.sh, transfer.sh): a scratch folder
# (tmp) and the background processes (pids) that their exit cleans up, an
# nginx of their own (never the system's), and the median of numbers.

tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

nginx=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx" ] || { echo "bench/http: nginx missing (nginx-light: scripts/deps.sh bench)" >&2; exit 1; }

# nginx_start DIR WORKERS CONNS HTTP: nginx in the background with its
# prefix, config and logs in DIR, WORKERS workers of CONNS connections
# each, HTTP the rest of its http block (its servers); its pid joins pids.
nginx_start() {
  local dir=$1
  mkdir -p "$dir/logs"
  cat >"$dir/nginx.conf" <<CONF
worker_processes $2;
daemon off;
pid $dir/nginx.pid;
error_log $dir/logs/error.log;
events { worker_connections $3; }
http {
  access_log off;
  client_body_temp_path $dir/body;
  proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/fastcgi;
  uwsgi_temp_path $dir/uwsgi;
  scgi_temp_path $dir/scgi;
$4
}
CONF
  "$nginx" -p "$dir" -e "$dir/logs/error.log" -c "$dir/nginx.conf" &
  pids+=($!)
}

# The median of the numbers on stdin, one per line.
median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
