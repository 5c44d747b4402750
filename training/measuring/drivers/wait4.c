/* rlm wait4 launcher (training/measuring/compiled.py): pid 1 of the sandbox.  Runs ARGV N times, each a fresh
 * child with INPUT on stdin (the first run's stdout is the launcher's, the others' go to /dev/null), and writes
 * one line per run to fd RESFD: "run <i> <status> <ru_maxrss kB> <utime s> <stime s>", from wait4 on that child.
 * Why a launcher: the harness's own wait4 counts the pages the harness had when it forked bwrap (exec keeps
 * the old peak), so only a small parent that forked the program itself gives the program's own peak RSS.
 * RESFD is closed in the child and the launcher is not dumpable, so the program cannot write its lines.
 * usage: rlm-wait4 N INPUT STACK_BYTES RESFD -- ARGV... */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 7) return 2;
    int n = atoi(argv[1]);
    const char *input = argv[2];
    rlim_t stack = (rlim_t)atoll(argv[3]);
    char **prog = argv + 6;
    prctl(PR_SET_DUMPABLE, 0);
    FILE *res = fdopen(atoi(argv[4]), "w");
    if (!res) return 2;
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0) return 2;
        if (pid == 0) {
            fclose(res);
            int fd = open(input, O_RDONLY);
            if (fd < 0 || dup2(fd, 0) < 0) _exit(127);
            close(fd);
            if (i > 0) {
                int nul = open("/dev/null", O_WRONLY);
                if (nul < 0 || dup2(nul, 1) < 0) _exit(127);
                close(nul);
            }
            struct rlimit rl = {stack, stack};
            setrlimit(RLIMIT_STACK, &rl); /* deep recursion: LeetCode's trees and DFS */
            execv(prog[0], prog);
            _exit(127);
        }
        int status = 0;
        struct rusage ru;
        if (wait4(pid, &status, 0, &ru) < 0) return 2;
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
        fprintf(res, "run %d %d %ld %ld.%06ld %ld.%06ld\n", i, code, ru.ru_maxrss, (long)ru.ru_utime.tv_sec,
                (long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec);
        fflush(res);
        if (code != 0) break; /* a failed run is not repeated */
    }
    fclose(res);
    return 0;
}
