// Preloaded into a store process by RowFormatUpgradeTests: kills the process with SIGKILL just
// before its Nth write (N from KB_KILL_AT_WRITE) to the store's database or WAL file, so a test
// can stop an upgrade at every write it makes and check what the next opening finds. Counts
// writes through write(2), pwrite(2) and pwrite64, which are what SQLite's unix VFS calls.
// Written for this project.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static long remaining = -1;

static int is_store_file(int fd) {
  char link[64];
  char path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t length = readlink(link, path, sizeof path - 1);
  if (length <= 0) return 0;
  path[length] = 0;
  size_t n = (size_t)length;
  return (n >= 11 && strcmp(path + n - 11, "keychain.db") == 0) ||
         (n >= 15 && strcmp(path + n - 15, "keychain.db-wal") == 0);
}

static void count_write(int fd) {
  if (remaining < 0) {
    const char *value = getenv("KB_KILL_AT_WRITE");
    remaining = value ? atol(value) : 0;
  }
  if (remaining > 0 && is_store_file(fd) && --remaining == 0) raise(SIGKILL);
}

ssize_t write(int fd, const void *buffer, size_t count) {
  static ssize_t (*real)(int, const void *, size_t);
  if (!real) real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
  count_write(fd);
  return real(fd, buffer, count);
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
  static ssize_t (*real)(int, const void *, size_t, off_t);
  if (!real) real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
  count_write(fd);
  return real(fd, buffer, count, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off64_t offset) {
  static ssize_t (*real)(int, const void *, size_t, off64_t);
  if (!real) real = (ssize_t (*)(int, const void *, size_t, off64_t))dlsym(RTLD_NEXT, "pwrite64");
  count_write(fd);
  return real(fd, buffer, count, offset);
}
