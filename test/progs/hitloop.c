/*
 * hitloop: the cost of one probe hit, for bench/patchers and the patcher
 * tests.  hl_probe is an empty function whose first instruction is 5
 * bytes (a victim the patcher takes alone) and whose second, "ret", is a
 * branch; hl_short begins with a 1-byte instruction.  hitloop N [BURST]
 * calls hl_probe N times, in bursts of BURST calls (default N) with a
 * 20 ms pause between them, so that a recorder empties the rings, and
 * prints the ns per call of the bursts alone.  The pauses are not timed.
 * hitloop N BURST fork: the same in a forked child too, at the same time
 * (each prints its line; the parent waits for the child).  hitloop N
 * BURST clock: each call's argument is CLOCK_MONOTONIC's ns just before
 * it, against which a test holds the hit's stamp.  hitloop N BURST args:
 * calls hl_args (as hl_probe) instead, with six arguments, call i's
 * 8i to 8i + 5.  hitloop N BURST stack: calls hl_stack, whose seventh
 * and eighth arguments are on the stack and whose value is their sum
 * (call i's: i and 1000000), and exits 1 if one call's is not.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

__asm__(".text\n"
    ".globl hl_probe\n.type hl_probe,@function\n"
    "hl_probe:\n\tmovl $0,%eax\n\tret\n.size hl_probe,.-hl_probe\n"
    ".globl hl_short\n.type hl_short,@function\n"
    "hl_short:\n\tpush %rbx\n\tpop %rbx\n\txorl %eax,%eax\n\tret\n"
    ".size hl_short,.-hl_short\n"
    ".globl hl_args\n.type hl_args,@function\n"
    "hl_args:\n\tmovl $0,%eax\n\tret\n.size hl_args,.-hl_args\n"
    ".globl hl_stack\n.type hl_stack,@function\n"
    "hl_stack:\n\tmovq 8(%rsp),%rax\n\taddq 16(%rsp),%rax\n\tret\n"
    ".size hl_stack,.-hl_stack\n");
int	hl_probe(long);
int	hl_short(long);
int	hl_args(long, long, long, long, long, long);
long	hl_stack(long, long, long, long, long, long, long, long);

static uint64_t
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int
main(int argc, char *argv[])
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, burst, i, done = 0;
	uint64_t t, spent = 0;
	pid_t child = -1;
	int status, clock = argc > 3 && strcmp(argv[3], "clock") == 0;
	int args = argc > 3 && strcmp(argv[3], "args") == 0;
	int stack = argc > 3 && strcmp(argv[3], "stack") == 0;
	long wrong = 0;

	burst = argc > 2 ? atol(argv[2]) : n;
	if (n <= 0 || burst <= 0) {
		fprintf(stderr, "usage: hitloop [N [BURST]]\n");
		return 64;
	}
	hl_short(0);
	if (argc > 3 && strcmp(argv[3], "fork") == 0 && (child = fork()) == -1) {
		perror("fork");
		return 71;
	}
	while (done < n) {
		if (done > 0)
			usleep(20000);
		t = now();
		for (i = 0; i < burst && done < n; i++, done++)
			if (args)
				hl_args(8 * done, 8 * done + 1, 8 * done + 2,
				    8 * done + 3, 8 * done + 4, 8 * done + 5);
			else if (stack)
				wrong += hl_stack(1, 2, 3, 4, 5, 6, done,
				    1000000) != done + 1000000;
			else
				hl_probe(clock ? (long)now() : done);
		spent += now() - t;
	}
	printf("%s %d calls %ld ns_per_call %.1f\n", child == 0 ? "child" :
	    "pid", (int)getpid(), n, (double)spent / n);
	fflush(stdout);
	if (wrong > 0) {
		fprintf(stderr, "hitloop: %ld of %ld calls of hl_stack "
		    "returned another sum\n", wrong, n);
		return 1;
	}
	if (child > 0 && (waitpid(child, &status, 0) == -1 ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0))
		return 1;
	return 0;
}
