#ifndef CKEYCHAINAGENT_H
#define CKEYCHAINAGENT_H

/*
    What keychaind needs from the C library that Swift cannot call: prctl(2) is variadic, and
    Swift imports no variadic C function.
*/

/// Marks the process not dumpable (PR_SET_DUMPABLE 0): no core file, and no other process of
/// the same user may attach to it or read its memory through /proc. Returns 0, or -1 with errno.
int keychaind_disable_dumps(void);

/// Whether the process is dumpable (PR_GET_DUMPABLE): 1, 0, or -1 with errno.
int keychaind_is_dumpable(void);

#endif
