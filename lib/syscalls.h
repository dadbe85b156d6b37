/* Syscall numbers and names of the machine we run on. */
#ifndef ARGUS_SYSCALLS_H
#define ARGUS_SYSCALLS_H

#define SYSCALL_MAX	1024	/* numbers at or above print as "?" */

const char	*syscall_name(long nr);		/* "" if unknown */
long		 syscall_nr(const char *name);	/* -1 if unknown */
extern const char *const syscall_default[];	/* NULL-terminated */

#endif
