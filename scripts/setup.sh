#!/usr/bin/env bash
# System packages the lab uses beyond npm, and the services the tests need.
#   npm run setup              Jupyter (runs the notebooks), pgbench/psql (notebooks 03–05),
#                              busybox-static (the offline stand-in image of the docker target)
#   npm run setup -- --tests   also Docker (started here), Chromium (report checks), and a second
#                              Node.js (a current LTS, from npm) that the unit tests also run on
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

# busybox-static: with Docker asked for (target docker) and no official image on the engine, the lab
# builds its stand-in PostgreSQL image offline from it and the embedded binaries (it never pulls).
packages=(jupyter-notebook jupyter-nbconvert python3-nbclient postgresql-15 busybox-static)
# openssh-server and openssl: the stand-in remote Docker host of the remote-engine tests (a network
# namespace with its own dockerd, sshd and TLS certificates); poppler-utils: pdftoppm, to look at PDF reports.
if $want_tests; then packages+=(docker.io chromium openssh-server openssl iptables poppler-utils); fi

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
  $sudo apt-get -o Acquire::Retries=3 update -qq
  # postgresql-15 is only for pgbench, psql and pg_basebackup: its own cluster (15/main on 5432) must
  # not start. A policy-rc.d that refuses every start (exit 101, what invoke-rc.d and
  # deb-systemd-invoke ask) holds for the install; one already there (Docker images ship one) is kept.
  policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# db-write-lab setup: no service starts during this install\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    trap '$sudo rm -f "$policy"' EXIT
  fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Retries=3 install -y -qq "${missing[@]}" >/dev/null
else
  echo "setup: system packages present"
fi

# Debian's cluster 15/main, when this run installed the package that created it: never started at
# boot (start.conf "manual") and stopped if it runs. A cluster that was there before is the user's
# and is left alone. The lab starts its own servers; this one would only take memory and port 5432.
installed_pg15=false
for p in "${missing[@]}"; do [ "$p" = postgresql-15 ] && installed_pg15=true; done
conf=/etc/postgresql/15/main/start.conf
if $installed_pg15 && [ -e "$conf" ]; then
  echo "setup: Debian's PostgreSQL 15 cluster \"main\" (not the lab's) set to start manually only"
  echo manual | $sudo tee "$conf" >/dev/null
  if command -v pg_lsclusters >/dev/null 2>&1 && pg_lsclusters -h 2>/dev/null | grep -Eq '^15 +main +[0-9]+ +online'; then
    $sudo pg_ctlcluster 15 main stop || true
  fi
fi

# A second Node.js for the unit tests: a current LTS from the npm registry (node-linux-<arch>, the
# official binaries as a package), unpacked into .cache/ where scripts/test.ts looks for it. The lab
# itself runs on the machine's Node (≥ 20.19); CI tests both.
NODE_LTS_VERSION=22.23.5
if $want_tests; then
  root="$(cd "$(dirname "$0")/.." && pwd)"
  lts_dir="$root/.cache/node-lts"
  case "$(uname -m)" in x86_64) arch=x64 ;; aarch64|arm64) arch=arm64 ;; *) arch="" ;; esac
  if [ -x "$lts_dir/bin/node" ] && [ "$("$lts_dir/bin/node" --version)" = "v$NODE_LTS_VERSION" ]; then
    echo "setup: Node $NODE_LTS_VERSION for the unit tests present ($lts_dir)"
  elif [ -z "$arch" ] || [ "$(uname -s)" != Linux ]; then
    echo "setup: no node-linux package for $(uname -s) $(uname -m): the unit tests run on this Node only"
  else
    echo "setup: fetching Node $NODE_LTS_VERSION for the unit tests (npm package node-linux-$arch)"
    tmp="$(mktemp -d)"
    if (cd "$tmp" && npm pack "node-linux-$arch@$NODE_LTS_VERSION" --silent >/dev/null) &&
      tar -xzf "$tmp"/node-linux-"$arch"-"$NODE_LTS_VERSION".tgz -C "$tmp" package/bin/node package/LICENSE; then
      rm -rf "$lts_dir" && mkdir -p "$lts_dir" && mv "$tmp/package/bin" "$tmp/package/LICENSE" "$lts_dir/"
      echo "setup: $("$lts_dir/bin/node" --version) at $lts_dir/bin/node"
    else
      echo "setup: could not fetch node-linux-$arch@$NODE_LTS_VERSION; the unit tests will say so and run on this Node only"
    fi
    rm -rf "$tmp"
  fi
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
