/*
 * What the unit tests share: the runner is test_stream.c's main(); each
 * test runs in a child process, whose exit status and stderr it checks,
 * because the library's answer to bad input is to exit.
 */
#ifndef ARGUS_UNIT_H
#define ARGUS_UNIT_H

#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#define CHECK(c) do {							\
	if (!(c)) {							\
		fprintf(stderr, "%s:%d: check failed: %s\n",		\
		    __FILE__, __LINE__, #c);				\
		_exit(99);						\
	}								\
} while (0)

struct test {
	const char	*name;
	void		(*fn)(void);
	int		 status;	/* the exit status it must end with */
	const char	*stderr_has;	/* and what it must say, or NULL */
};

/* A file NAME in the run's own temporary directory, and its content. */
char	*path(const char *name);
void	 put_file(const char *name, const char *text);

/* test_parse.c: the time, graph record and relation parsers. */
extern const struct test parse_tests[];
extern const size_t nparse_tests;

#endif
