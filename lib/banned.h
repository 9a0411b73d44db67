/* banned.h: functions that invite buffer overflows or hidden state; using one is a compile
 * error (git's trick). Included last by every tuner source. */
#ifndef AUTOTUNE_BANNED_H
#define AUTOTUNE_BANNED_H

#define BANNED(func) sorry_##func##_is_banned_in_autotune

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef gets
#define gets(x) BANNED(gets)
/* no shell, ever: programs start from argument vectors (proc.c) */
#undef system
#define system sorry_system_is_banned_in_autotune
#undef popen
#define popen sorry_popen_is_banned_in_autotune

#endif
