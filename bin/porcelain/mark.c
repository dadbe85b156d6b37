/*
 * argus mark: a marker event in the recording, the moment the user saw
 * the hang; argus-spin takes the last one as the hang's moment.  And what
 * every blocked thread waits on at that moment, which the recording
 * cannot say of a wait not yet ended: a wait-for snapshot beside the ring.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "porcelain.h"

static const char usage[] =
"usage: argus mark [--no-snapshot] [TEXT ...]\n"
"Write 'argus-mark TEXT' into the recording, to mark when a hang was\n"
"noticed; argus-spin takes the last mark as the moment of the hang.  The\n"
"recorder writes out what its kernel buffers hold, the hang's past.\n"
"Then take a wait-for snapshot (argus-waitfor(1)) into the recorder's\n"
"directory, which 'argus debug' reads with the recording, and the user\n"
"stacks of the threads blocked a second or more, which it shows for a\n"
"hang it diagnoses at the mark.\n"
"\n"
"  --no-snapshot   only the mark\n";

/* Into the recorder's own instance: nobody else's buffer. */
int
mark_note(pid_t pid, const char *text, char *path, size_t size)
{
	static const char *roots[] = { "/sys/kernel/tracing",
	    "/sys/kernel/debug/tracing" };
	size_t i;
	int fd = -1;

	for (i = 0; i < ARRAY_LEN(roots) && fd == -1; i++) {
		snprintf(path, size, "%s/instances/argus-%d/trace_marker",
		    roots[i], (int)pid);
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd == -1 || write(fd, text, strlen(text)) == -1) {
		if (fd != -1)
			close(fd);
		return -1;
	}
	return close(fd);
}

static int
mark(int argc, char *argv[])
{
	char path[PATH_MAX], stacks[PATH_MAX], text[1024] = "argus-mark";
	uint64_t t, reach, oldest;
	size_t n = strlen(text), m;
	pid_t pid;
	int k = 1, snap = 1;

	if ((pid = recorder()) == 0)
		diex(EX_UNAVAILABLE, "the recorder is not running ('argus start')");
	if (argc > 1 && strcmp(argv[1], "--no-snapshot") == 0) {
		snap = 0;
		k++;
	}
	for (; k < argc; k++) {
		m = strlen(argv[k]);
		if (n + 1 + m >= sizeof(text))
			diex(EX_USAGE, "mark: text longer than %zu bytes",
			    sizeof(text) - 1);
		text[n++] = ' ';
		memcpy(text + n, argv[k], m + 1);
		n += m;
	}
	t = now_ns();
	if (mark_note(pid, text, path, sizeof(path)) == -1)
		die(EX_UNAVAILABLE, "%s", path);
	/* The hang's past, out of the kernel's ring before it wraps. */
	recorder_drain(pid);
	/*
	 * The mark itself may have gone to the spill with its page: out
	 * with what was spilled since (debug reads back older pages only
	 * when it needs them).
	 */
	if (recorder_reach() > t)
		recorder_deepen(pid, t, &reach, &oldest);
	/* The mark is made: a snapshot that fails is said, not fatal. */
	if (snap && (t = snapshot_take(path, sizeof(path))) != 0) {
		/* Where the blocked threads are: the hang may end before debug. */
		snapshot_stacks(t, stacks, sizeof(stacks));
		present_save(path, stacks);
	}
	return 0;
}

const struct command cmd_mark = { "mark", usage, mark };
