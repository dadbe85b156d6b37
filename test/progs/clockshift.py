#!/usr/bin/env python3
# clockshift.py NS < capture > shifted: a capture as if another machine took
# it, whose CLOCK_MONOTONIC read NS more (NS may be negative): every time a
# capture writes (TIME, hrtimer times, a wait's DEADLINE and SINCE, meta
# start and end) moved, the wall-clock anchor by as much the other way,
# and a boot of its own (meta boot_id).
import csv, sys
d = int(sys.argv[1])
r = csv.reader(sys.stdin)
w = csv.writer(sys.stdout, lineterminator="\n")
def sh(v, k=d):
    return str(int(v) + k) if v.isdigit() and int(v) > 0 else v
for f in r:
    if not f or f[0].startswith("#") or f[0] == "argus-stream":
        w.writerow(f); continue
    if len(f) > 1: f[1] = sh(f[1])
    if f[0] == "event" and len(f) > 8:
        t, a = f[6], 8
        if t == "hrtimer_start":
            for i in (a + 2, a + 3):
                if i < len(f): f[i] = sh(f[i])
        elif t == "hrtimer_expire_entry" and a + 2 < len(f):
            f[a + 2] = sh(f[a + 2])
    elif f[0] == "meta" and len(f) > 5:
        if f[4] in ("start", "end"): f[5] = sh(f[5])
        elif f[4] == "wallclock": f[5] = sh(f[5], -d)
        elif f[4] == "boot_id": f[5] = "shifted-%d-" % d + f[5]
    elif f[0] == "wait":
        for i in (11, 12):
            if i < len(f): f[i] = sh(f[i])
    w.writerow(f)
