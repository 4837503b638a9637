#!/usr/bin/env bash
# bench/ab.sh: time two builds of hindsight against each other, fairly.
#
#   bench/ab.sh [--rounds N] OLD NEW -- ARGS...
#
# Runs `OLD ARGS...` and `NEW ARGS...` (for example `check --format json
# FILE`) in the order OLD NEW NEW OLD, N times (default 3), under GNU
# time, and prints every run and, per build, the median and range of the
# wall time, peak RSS (in MiB, 2^20 bytes; before 2026-12-07 it printed
# the same figure labelled "MB"), user and system time.
#
# Why that order: on this project's virtual machine, runs of a large check
# alternate between slow and fast, whichever binary runs. Eight runs of
# one build on the 1.39M-op history took 1.93, 1.57, 1.76, 1.61, 1.85,
# 1.59, 1.82 and 1.58 s, the slow ones with three times the system time
# (0.6 to 0.8 s against 0.2). It looks like the virtual machine's host
# taking back memory the guest freed: with 5 s of idle between runs,
# nearly every run was slow (0.9 to 1.0 s of system time), with 1 s,
# nearly none. Runs in the
# order OLD NEW OLD NEW put every OLD in a slow slot and every NEW in a
# fast one: a head start of about 15 % for NEW. In OLD NEW NEW OLD each
# build lands as often in either. Still compare medians over
# several rounds, and run nothing else meanwhile: this machine's speed
# also wanders by 20 % from one hour to the next.
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
ROUNDS=3
if [[ "${1:-}" == "--rounds" ]]; then
  ROUNDS="$2"
  shift 2
fi
[[ $# -ge 4 && "$3" == "--" ]] || { usage >&2; exit 2; }
OLD="$1" NEW="$2"
shift 3
command -v /usr/bin/time >/dev/null || { echo "bench/ab.sh: needs GNU time (/usr/bin/time)" >&2; exit 2; }

runs="$(mktemp)"
trap 'rm -f "$runs"' EXIT
for ((r = 1; r <= ROUNDS; r++)); do
  for which in old new new old; do
    bin="$OLD"
    [[ "$which" == new ]] && bin="$NEW"
    # the exit status is the verdict's (1 for invalid): not a failure here
    /usr/bin/time -o "$runs.one" -f "$which %e %M %U %S" "$bin" "$@" >/dev/null 2>&1 || true
    tail -n 1 "$runs.one" | tee -a "$runs"
  done
done
rm -f "$runs.one"

summary() {
  awk -v which="$1" -v name="$2" '
    function median(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    $1 == which { n++; w[n] = $2; m[n] = $3 / 1024; u[n] = $4; s[n] = $5
      if (n == 1 || $2 < wlo) wlo = $2; if (n == 1 || $2 > whi) whi = $2
      if (n == 1 || $3 < mlo) mlo = $3; if (n == 1 || $3 > mhi) mhi = $3 }
    END {
      if (n == 0) exit
      printf "%s (%s): wall median %.2f s (%.2f to %.2f), peak RSS median %.0f MiB (%.0f to %.0f), user %.2f s, sys %.2f s; %d runs\n",
        which, name, median(w, n), wlo, whi, median(m, n), mlo / 1024, mhi / 1024, median(u, n), median(s, n), n
    }' "$runs"
}
echo
summary old "$OLD"
summary new "$NEW"
