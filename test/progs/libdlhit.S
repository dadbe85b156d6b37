/*
 * libdlhit.so, for test/progs/dlhit: a library that a program dlopen()s,
 * with a function whose first instruction is a 5-byte victim the patcher
 * takes alone (as hitloop's hl_probe).
 */
	.text
	.globl	dh_probe
	.type	dh_probe, @function
dh_probe:
	movl	$0, %eax
	ret
	.size	dh_probe, .-dh_probe
	.section .note.GNU-stack,"",@progbits
