/*
 * Naming the frames of user call stacks (--stacks; dwstack.c takes them):
 * from /proc/PID/maps and the ELF symbols of the mapped files.
 */
#ifndef CAPTURE_USTACK_H
#define CAPTURE_USTACK_H

#include <stddef.h>
#include <stdint.h>

/*
 * "func+0x1a" in the executable, "libc.so.6!poll+0x4f" in a library,
 * "libfoo.so+0x1234" without a symbol, "0x7f..." outside any file.  ret:
 * addr is a return address (every frame but the first).
 */
void	 ustack_frame(int tgid, uint64_t addr, int ret, char *buf,
	    size_t size);
void	 ustack_snapshot(int tgid);	/* read its maps now */
void	 ustack_forget(int tgid);	/* it exec'd: its maps are new */

#endif
