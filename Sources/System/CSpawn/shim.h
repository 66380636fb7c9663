// glibc's (2.29 and 2.34) posix_spawn file actions that Swift's Glibc module leaves out: they
// are declared only under _GNU_SOURCE. Used by TestSupport's Spawn (see Spawn.swift).
#include <spawn.h>

#ifdef __linux__
int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
#endif
