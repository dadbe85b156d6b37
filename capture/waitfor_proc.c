/*
 * The wait-for snapshot's (waitfor.c) reading of /proc and of other
 * processes' memory, and its clocks: what all four passes read with, so
 * that a file gone under us (the process exited) is one answer, never an
 * error.
 */
#include <sys/types.h>
#include <sys/uio.h>

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "event.h"
#include "procopen.h"
#include "waitfor.h"
#include "waitfor_int.h"

ssize_t
wf_procf(char *buf, size_t size, const char *fmt, ...)
{
	char path[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return proc_slurp(path, buf, size);
}

/* A process's memory, read without stopping it (root, or ptrace access). */
int
wf_peek(int pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)addr, len };

	return addr != 0 && process_vm_readv(pid, &local, 1, &remote, 1, 0) ==
	    (ssize_t)len ? 0 : -1;
}

uint64_t
wf_ts_ns(int64_t sec, int64_t frac, int64_t unit)
{
	if (sec < 0 || frac < 0)
		return 0;
	return (uint64_t)sec * 1000000000ULL + (uint64_t)(frac * unit);
}

/* A struct timespec (unit 1) or timeval (unit 1000) in the process. */
uint64_t
wf_peek_time(int pid, uint64_t addr, int unit, int *ok)
{
	int64_t t[2];

	*ok = wf_peek(pid, addr, t, sizeof(t)) == 0;
	return *ok ? wf_ts_ns(t[0], t[1], unit) : 0;
}

uint64_t
wf_clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* An absolute time on a process's clock, on ours; NO_TIME if unknown. */
uint64_t
wf_to_mono(const struct wf_snap *s, int clock, uint64_t t)
{
	switch (clock) {
	case CLOCK_MONOTONIC:
		return t;
	case CLOCK_REALTIME:
	case CLOCK_TAI:
		return t > s->rt_off ? t - s->rt_off : 0;
	case CLOCK_BOOTTIME:
		return t > s->boot_off ? t - s->boot_off : 0;
	}
	return NO_TIME;
}

