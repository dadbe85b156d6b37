/*
 * monotime: print CLOCK_MONOTONIC in nanoseconds, the clock of Argus
 * traces, so that shell scripts (the real-program cases of test/real) can
 * write ground truth that lines up with a capture.  date(1) has only the
 * wall clock, which steps.
 */
#include <err.h>
#include <stdio.h>
#include <time.h>

int
main(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		err(1, "clock_gettime");
	printf("%lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	return 0;
}
