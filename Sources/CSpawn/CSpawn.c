// posix_spawn_file_actions_addclosefrom_np, _addchdir_np and pipe2 are GNU extensions (glibc
// 2.34, 2.29), invisible to Swift's Glibc module.
#define _GNU_SOURCE
#include "CSpawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

int wg_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int wg_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], const char *directory,
             int stdin_fd, int stdout_fd, int stderr_fd) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) return rc;
    rc = posix_spawnattr_init(&attributes);
    if (rc != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return rc;
    }
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
    if (rc == 0) rc = posix_spawn_file_actions_adddup2(&actions, stderr_fd, 2);
    if (rc == 0 && directory != NULL) rc = posix_spawn_file_actions_addchdir_np(&actions, directory);
    if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(&actions, 3);

    sigset_t unblocked, defaults;
    sigemptyset(&unblocked);
    sigemptyset(&defaults);
    // Ignored dispositions survive exec: a test runner that ignores SIGPIPE or SIGINT must not
    // pass that on to a broker or gateway under test.
    int restored[] = {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGUSR1, SIGUSR2, SIGCHLD};
    for (unsigned i = 0; i < sizeof restored / sizeof restored[0]; i++) sigaddset(&defaults, restored[i]);
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attributes, &unblocked);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attributes, &defaults);
    if (rc == 0) rc = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (rc == 0) rc = posix_spawn(pid, path, &actions, &attributes, argv, envp);

    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}
