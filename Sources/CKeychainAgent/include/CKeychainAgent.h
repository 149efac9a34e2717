#ifndef CKEYCHAINAGENT_H
#define CKEYCHAINAGENT_H

#include <sys/types.h>

/*
    What keychaind and the library that starts it need from the C library that Swift cannot
    call: prctl(2) is variadic, and Swift imports no variadic C function; posix_spawn's
    POSIX_SPAWN_SETSID and posix_spawn_file_actions_addclosefrom_np are declared for _GNU_SOURCE
    only, which Swift's Glibc module does not define.
*/

/// Marks the process not dumpable (PR_SET_DUMPABLE 0): no core file, and no other process of
/// the same user may attach to it or read its memory through /proc. Returns 0, or -1 with errno.
int keychaind_disable_dumps(void);

/// Whether the process is dumpable (PR_GET_DUMPABLE): 1, 0, or -1 with errno.
int keychaind_is_dumpable(void);

/// Starts `path` with `argv` and `envp` in a session of its own (setsid), standard input and
/// output on /dev/null, standard error appended to `log` (created 0600, not through a symbolic
/// link), and no other descriptor of this process. Returns 0 and the child in `pid`, or an
/// errno value.
int keychaind_spawn_detached(
    const char *path, char *const argv[], char *const envp[], const char *log, pid_t *pid);

#endif
