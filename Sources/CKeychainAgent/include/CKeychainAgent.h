#ifndef CKEYCHAINAGENT_H
#define CKEYCHAINAGENT_H

#include <sys/types.h>

/*
    What keychaind and the library that starts it need from the C library that Swift cannot
    call: prctl(2) and ioctl(2) are variadic, and Swift imports no variadic C function; posix_spawn's
    POSIX_SPAWN_SETSID and posix_spawn_file_actions_addclosefrom_np, struct ucred and SO_PASSCRED
    are declared for _GNU_SOURCE only, which Swift's Glibc module does not define; the CMSG
    macros that read a message's control data are macros.
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

/// Turns on SO_PASSCRED on `socket`: every message received on it then carries the process
/// identifier of the process that sent it (SCM_CREDENTIALS), recorded by the kernel at send time.
/// Returns 0, or -1 with errno.
int keychain_socket_pass_credentials(int socket);

/// recv(2) into `buffer` that also reports the process that sent the bytes (SCM_CREDENTIALS, when
/// SO_PASSCRED is on): `*sender` is its process identifier, or 0 when the kernel attached none.
/// The kernel never merges bytes of two senders in one read. Returns what recv returns.
long keychain_receive_with_sender(int socket, void *buffer, unsigned long length, int flags, pid_t *sender);

/// How many bytes wait in `socket`'s receive queue (FIONREAD), or -1 with errno.
int keychain_socket_pending_bytes(int socket);

/*
    epoll(7) for the agent's event loop: struct epoll_event is packed on x86-64, which Swift
    does not import faithfully, so the loop sees only descriptors and event bits.
*/

/// A new epoll instance (close-on-exec), or -1 with errno.
int keychain_epoll_create(void);

/// Watches `descriptor` for input, its peer's hang-up and errors, once: after an event it is
/// disarmed until armed again (EPOLLONESHOT), so one thread at a time owns a connection. `adding`
/// adds it, else re-arms it. Returns 0, or -1 with errno.
int keychain_epoll_arm(int epoll, int descriptor, int adding);

/// Stops watching `descriptor`. Returns 0, or -1 with errno.
int keychain_epoll_remove(int epoll, int descriptor);

/// Waits up to `timeout` milliseconds for events; fills `descriptors` and `hangUps` (1 when the
/// peer hung up or the descriptor failed) with at most `capacity` of them. Returns how many, or
/// -1 with errno.
int keychain_epoll_wait(int epoll, int *descriptors, int *hangUps, int capacity, int timeout);

#endif
