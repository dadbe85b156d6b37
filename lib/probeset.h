/*
 * The probe-set grammar, one line at a time: what argus-capture places as
 * uprobes (capture/probes.c) and the patcher patches in process
 * (patchers/patch.c), so that a set means the same to both.
 *
 *     LIBRARY  SYMBOL[+OFFSET]  EVENT  [return] [args=N] [skip=HEX] [run]
 *
 * (patchers/README, Format).  The patcher links this file into an
 * injected library: it allocates nothing, exits never and uses no
 * floating point; errors come back as text for the caller to place.
 */
#ifndef ARGUS_PROBESET_H
#define ARGUS_PROBESET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PROBESET_MAXARGS	6	/* args=N: the SysV argument registers */
#define PROBESET_MAXSKIP	16	/* skip=HEX: bytes */
#define PROBESET_MAXEVENT	40	/* an EVENT's characters */

struct probeline {
	char		*lib, *sym, *event;	/* into the line parsed */
	uint64_t	 off;
	int		 deref;		/* *TABLE+OFFSET */
	int		 ret, nargs, run;
	unsigned char	 skip[PROBESET_MAXSKIP];
	int		 nskip;
};

/*
 * One line, split in place ('#' to its end is a comment): 1 a probe, in
 * *pl; 0 a line with none; -1 a malformed one, why in err.
 */
int	 probeset_line(char *line, struct probeline *pl, char *err,
	     size_t errsize);
/* "SYM", "SYM+OFF", "*SYM+OFF" (s is cut at the '+'): 0, or -1. */
int	 probeset_symbol(struct probeline *pl, char *s);
/* An EVENT: letters, digits and '_', not first a digit. */
int	 probeset_ident(const char *s);

/*
 * A set named without a directory ("pthread", "glib.probes"), looked for
 * in each of dirs under base: base/DIR/NAME[.probes].  The path opened, or
 * else name, in found; NULL with errno ENOENT when none is there.
 */
FILE	*probeset_find(const char *name, const char *base,
	     const char *const *dirs, size_t ndirs, char *found, size_t size);

#endif
