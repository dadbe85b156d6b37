/*
 * dlhit LIB N [again]: dlopen()s LIB after start-up and calls its
 * dh_probe(i) for i = 0..N-1, for the patcher's test of libraries loaded
 * late; with "again", then dlclose()s it, opens it once more and makes
 * the same N calls.  Prints "pid PID" and "calls TOTAL".
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long
calls(const char *lib, long n, void **hp)
{
	int (*fn)(long);
	long i;

	if ((*hp = dlopen(lib, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		fprintf(stderr, "dlhit: %s\n", dlerror());
		exit(66);
	}
	if ((fn = (int (*)(long))dlsym(*hp, "dh_probe")) == NULL) {
		fprintf(stderr, "dlhit: %s\n", dlerror());
		exit(65);
	}
	for (i = 0; i < n; i++)
		fn(i);
	return n;
}

int
main(int argc, char *argv[])
{
	long n, total;
	void *h;

	if (argc < 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: dlhit LIB N [again]\n");
		return 64;
	}
	printf("pid %d\n", (int)getpid());
	total = calls(argv[1], n, &h);
	if (argc > 3 && strcmp(argv[3], "again") == 0) {
		dlclose(h);
		total += calls(argv[1], n, &h);
	}
	printf("calls %ld\n", total);
	return 0;
}
