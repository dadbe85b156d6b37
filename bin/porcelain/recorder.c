/*
 * The flight recorder as the porcelain knows it: a directory holding the
 * ring files, and the pid of the argus-capture that writes them.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "porcelain.h"

void
ring_path(char *buf, size_t size, const char *name)
{
	if ((size_t)snprintf(buf, size, "%s/%s", ring, name) >= size)
		diex(EX_USAGE, "%s: path too long", ring);
}

/* The recorder we started, if it still runs: only ever that process. */
pid_t
recorder(void)
{
	char path[PATH_MAX], comm[64] = "";
	FILE *fp;
	long pid = 0;

	ring_path(path, sizeof(path), "recorder.pid");
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	if (fscanf(fp, "%ld", &pid) != 1)
		pid = 0;
	fclose(fp);
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (pid <= 0 || (fp = fopen(path, "r")) == NULL)
		return 0;
	if (fgets(comm, sizeof(comm), fp) == NULL)
		comm[0] = '\0';
	fclose(fp);
	return strncmp(comm, "argus-capture", 13) == 0 ? (pid_t)pid : 0;
}
