package native

// The system call numbers mainWait knows (x86-64).
const (
	pollSyscall       = 7
	epollWaitSyscall  = 232
	epollPwaitSyscall = 281
)
