#define _GNU_SOURCE
#include "CKeychainAgent.h"

#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/epoll.h>
#include <sys/socket.h>

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

int keychain_socket_pass_credentials(int socket) {
  int on = 1;
  return setsockopt(socket, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
}

long keychain_receive_with_sender(int socket, void *buffer, unsigned long length, int flags, pid_t *sender) {
  struct iovec vector = {.iov_base = buffer, .iov_len = length};
  union {
    struct cmsghdr align;
    char bytes[CMSG_SPACE(sizeof(struct ucred))];
  } control;
  struct msghdr message;
  memset(&message, 0, sizeof message);
  message.msg_iov = &vector;
  message.msg_iovlen = 1;
  message.msg_control = control.bytes;
  message.msg_controllen = sizeof control.bytes;
  *sender = 0;
  ssize_t result = recvmsg(socket, &message, flags | MSG_CMSG_CLOEXEC);
  if (result <= 0) return result;
  for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_CREDENTIALS
        && header->cmsg_len == CMSG_LEN(sizeof(struct ucred))) {
      struct ucred credentials;
      memcpy(&credentials, CMSG_DATA(header), sizeof credentials);
      *sender = credentials.pid;
    }
  }
  return result;
}

int keychain_socket_pending_bytes(int socket) {
  int pending = 0;
  if (ioctl(socket, FIONREAD, &pending) != 0) return -1;
  return pending;
}

int keychain_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int keychain_epoll_arm(int epoll, int descriptor, int adding) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT;
    event.data.fd = descriptor;
    return epoll_ctl(epoll, adding ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, descriptor, &event);
}

int keychain_epoll_remove(int epoll, int descriptor) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    return epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, &event);
}

int keychain_epoll_wait(int epoll, int *descriptors, int *hangUps, int capacity, int timeout) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epoll, events, capacity, timeout);
    for (int index = 0; index < count; index++) {
        descriptors[index] = events[index].data.fd;
        hangUps[index] = (events[index].events & (EPOLLHUP | EPOLLERR)) != 0;
    }
    return count;
}
