#!/usr/bin/env bash
# System packages the lab uses beyond npm, and the services the tests need.
#   npm run setup              Jupyter (runs the notebooks), pgbench/psql (notebooks 03–05)
#   npm run setup -- --tests   also Docker (started here), Chromium (report checks), busybox-static
#                              (the stand-in PostgreSQL image)
# Debian/Ubuntu via apt-get (as root, or with sudo). Elsewhere it says what to install and exits 0.
set -euo pipefail

want_tests=false
for arg in "$@"; do
  case "$arg" in
    --tests) want_tests=true ;;
    -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup: unknown option $arg (known: --tests)" >&2; exit 2 ;;
  esac
done

packages=(jupyter-notebook jupyter-nbconvert python3-nbclient postgresql-15)
# openssh-server and openssl: the stand-in remote Docker host of the remote-engine tests (a network
# namespace with its own dockerd, sshd and TLS certificates); poppler-utils: pdftoppm, to look at PDF reports.
if $want_tests; then packages+=(docker.io chromium busybox-static openssh-server openssl iptables poppler-utils); fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: no apt-get here. Install yourself: Jupyter with nbclient and nbconvert (pip install notebook nbclient nbconvert),"
  echo "       pgbench and psql (PostgreSQL client tools), and for the tests Docker and Chromium."
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "setup: not root and no sudo: install ${packages[*]} yourself" >&2; exit 1
  fi
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  # postgresql-15 is only for pgbench, psql and pg_basebackup: keep its own cluster from starting.
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "setup: system packages present"
fi

if $want_tests && ! docker info >/dev/null 2>&1; then
  if command -v dockerd >/dev/null 2>&1 && [ -z "$sudo" ]; then
    echo "setup: starting dockerd"
    (dockerd >/tmp/db-write-lab-dockerd.log 2>&1 &)
    for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
    docker info >/dev/null 2>&1 && echo "setup: dockerd is up" || echo "setup: dockerd did not start (see /tmp/db-write-lab-dockerd.log); docker tests will skip"
  else
    echo "setup: no Docker daemon answers; docker tests will skip with that reason"
  fi
fi
