#ifndef CSPAWN_H
#define CSPAWN_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (NULL-terminated), its standard input, output and error
/// being `stdin_fd`, `stdout_fd` and `stderr_fd`, in `directory` (NULL: the caller's), with no
/// other descriptor inherited, no signal blocked and the usual terminating signals at their
/// default action. Returns 0 and sets `*pid`, or an errno value.
///
/// Why not Foundation's Process: it closes the parent's descriptors in the child from a list taken
/// before spawning, so descriptors another thread opens meanwhile (other children's pipes and exit
/// sockets) leak into the child, and a child can inherit a blocked SIGTERM. glibc's
/// posix_spawn_file_actions_addclosefrom_np closes everything from 3 up inside the child itself.
int wg_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], const char *directory,
             int stdin_fd, int stdout_fd, int stderr_fd);

/// pipe2(fds, O_CLOEXEC): a pipe whose ends no other child inherits (pipe2 is a GNU extension).
int wg_pipe_cloexec(int fds[2]);

#endif
