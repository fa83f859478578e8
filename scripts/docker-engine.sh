#!/usr/bin/env bash
# For the official-harness grader's end-to-end test: a Docker engine on this machine (started
# here when none answers) and a base image with python3, pytest and git, made offline from
# Debian's packages, so no registry is needed. Best effort: when a step fails, the test is
# skipped and says why.
set -uo pipefail
IMAGE=capabench-test/debian-python:bookworm
warn() { echo "warning: $1; the official-harness test will be skipped" >&2; exit 0; }
apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1 \
    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; }
}
if ! docker info >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || warn "no Docker engine, and not root to start one"
  if ! command -v dockerd >/dev/null 2>&1; then
    apt_install docker.io || warn "docker.io did not install"
  fi
  nohup dockerd >/tmp/capabench-dockerd.log 2>&1 &
  for _ in $(seq 30); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || warn "dockerd did not start (see /tmp/capabench-dockerd.log)"
fi
if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
  command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap || warn "debootstrap did not install"
  root=$(mktemp -d)
  debootstrap --variant=minbase --include=python3,python3-pytest,git bookworm "$root" \
    http://deb.debian.org/debian >/dev/null 2>&1 || { rm -rf "$root"; warn "debootstrap failed"; }
  tar -C "$root" -c . | docker import - "$IMAGE" >/dev/null || warn "docker import failed"
  rm -rf "$root"
fi
