#define _GNU_SOURCE
#include "CKeychainAgent.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/prctl.h>

int keychaind_disable_dumps(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

int keychaind_is_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }

int keychaind_spawn_detached(
    const char *path, char *const argv[], char *const envp[], const char *log, pid_t *pid) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  int result = posix_spawn_file_actions_init(&actions);
  if (result != 0) return result;
  result = posix_spawnattr_init(&attributes);
  if (result != 0) {
    posix_spawn_file_actions_destroy(&actions);
    return result;
  }
  if (result == 0) result = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (result == 0) result = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  if (result == 0)
    result = posix_spawn_file_actions_addopen(
        &actions, 2, log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0600);
  /* A descriptor the program left inheritable (a pipe its parent reads to the end, say) would
     otherwise stay open for the agent's whole life. */
  if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  if (result == 0) result = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);
  if (result == 0) result = posix_spawn(pid, path, &actions, &attributes, argv, envp);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  return result;
}
